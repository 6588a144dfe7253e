package engine

import (
	"encoding/json"
	"fmt"
	"time"
)

// Type is the first byte of an encoded command. The numbers are part of the
// log format: append new ones, never renumber or reuse one.
type Type byte

// Command types.
const (
	TypeLeaseCommit         Type = 1
	TypeLeaseRelease        Type = 2
	TypeCreateInfraEnv      Type = 3
	TypeUpdateInfraEnv      Type = 4
	TypeDeleteInfraEnv      Type = 5
	TypeCreateCluster       Type = 6
	TypeUpdateCluster       Type = 7
	TypeDeleteCluster       Type = 8
	TypeRegisterHost        Type = 9
	TypeUpdateHost          Type = 10
	TypeDeleteHost          Type = 11
	TypeBindHost            Type = 12
	TypeUnbindHost          Type = 13
	TypeSetHostStatus       Type = 14
	TypePutSecret           Type = 15
	TypeDeleteSecret        Type = 16
	TypeAppendEvent         Type = 17
	TypeCreateNMStateConfig Type = 18
	TypeDeleteNMStateConfig Type = 19
	TypePutImageSet         Type = 20
	TypeDeleteImageSet      Type = 21
	TypeSetClusterStatus    Type = 22

	// HA/cluster: 39–44.
	TypeFenced Type = 39 // fenced.go
)

// Kubernetes-style objects of engine/kubeapi (60–69; 62–69 are reserved).
const (
	TypePutObject    Type = 60
	TypeDeleteObject Type = 61
)

// Installation commands (23–32; 28–32 are reserved).
const (
	TypeStartInstall      Type = 23
	TypeInstallProgress   Type = 24
	TypeInstallTransition Type = 25
	TypePutManifest       Type = 26
	TypeDeleteManifest    Type = 27
)

// BareMetalHost commands (33–38; 38 is reserved).
const (
	TypeCreateBareMetalHost    Type = 33
	TypeUpdateBareMetalHost    Type = 34
	TypeDeleteBareMetalHost    Type = 35
	TypeSetBareMetalHostStatus Type = 36
	TypePairBareMetalHost      Type = 37
)

// bodyVersion is the version byte of the bodies written today. A command
// whose body changes incompatibly gets a new version and its table entry
// learns to decode both.
const bodyVersion = 1

// bodyVersion2 marks a body that uses fields an older rackboot would
// ignore while decoding it (an event carried by a host command, a
// PutSecret's if_revision): ignoring them would make that appliance's state
// differ from the rack's, so an older rackboot must refuse the entry (and
// stop, as it does for any entry it cannot decode) rather than apply less
// of it. Commands that use no such field keep version 1.
const bodyVersion2 = 2

// versioned is a command whose body version depends on the fields it uses.
type versioned interface {
	bodyVersion() byte
}

// versionOf is the body version cmd is written with.
func versionOf(cmd Command) byte {
	if v, ok := cmd.(versioned); ok {
		return v.bodyVersion()
	}
	return bodyVersion
}

// Command is a typed change to the model. Commands are plain structs with
// JSON bodies; pointers to them implement Command.
type Command interface {
	Type() Type
	// Time is the time the leader stamped on the command (zero until then).
	Time() time.Time
	// SetTime stamps the command; Store.Apply does it when Time is zero.
	SetTime(time.Time)
	// apply checks the command against tx's model and then changes it.
	apply(tx *Tx) (any, error)
}

// Stamp carries a command's time. Every command embeds it.
type Stamp struct {
	At time.Time `json:"at"`
}

// Time returns the stamped time.
func (s *Stamp) Time() time.Time { return s.At }

// SetTime stamps t.
func (s *Stamp) SetTime(t time.Time) { s.At = t }

// decoder turns a versioned body into its command.
type decoder func(version byte, body []byte) (Command, error)

// commandTable is the dispatch table: one entry per command type.
func commandTable() map[Type]decoder {
	return map[Type]decoder{
		TypeLeaseCommit:            v1[LeaseCommit],
		TypeLeaseRelease:           v1[LeaseRelease],
		TypeCreateInfraEnv:         v2[CreateInfraEnv],
		TypeUpdateInfraEnv:         v2[UpdateInfraEnv],
		TypeDeleteInfraEnv:         v1[DeleteInfraEnv],
		TypeCreateCluster:          v1[CreateCluster],
		TypeUpdateCluster:          v1[UpdateCluster],
		TypeDeleteCluster:          v1[DeleteCluster],
		TypeRegisterHost:           v2[RegisterHost],
		TypeUpdateHost:             v2[UpdateHost],
		TypeDeleteHost:             v1[DeleteHost],
		TypeBindHost:               v1[BindHost],
		TypeUnbindHost:             v2[UnbindHost],
		TypeSetHostStatus:          v2[SetHostStatus],
		TypePutSecret:              v2[PutSecret],
		TypeDeleteSecret:           v1[DeleteSecret],
		TypeAppendEvent:            v1[AppendEvent],
		TypeCreateNMStateConfig:    v1[CreateNMStateConfig],
		TypeDeleteNMStateConfig:    v1[DeleteNMStateConfig],
		TypePutImageSet:            v1[PutImageSet],
		TypeDeleteImageSet:         v1[DeleteImageSet],
		TypeSetClusterStatus:       v1[SetClusterStatus],
		TypeCreateBareMetalHost:    v1[CreateBareMetalHost],
		TypeUpdateBareMetalHost:    v1[UpdateBareMetalHost],
		TypeDeleteBareMetalHost:    v1[DeleteBareMetalHost],
		TypeSetBareMetalHostStatus: v1[SetBareMetalHostStatus],
		TypePairBareMetalHost:      v1[PairBareMetalHost],
		TypeStartInstall:           v1[StartInstall],
		TypeInstallProgress:        v1[InstallProgress],
		TypeInstallTransition:      v1[InstallTransition],
		TypePutManifest:            v1[PutManifest],
		TypeDeleteManifest:         v1[DeleteManifest],
		TypePutObject:              v1[PutObject],
		TypeDeleteObject:           v2[DeleteObject],
	}
}

// v1 decodes a version-1 JSON body into a *T.
func v1[T any, P interface {
	*T
	Command
}](version byte, body []byte) (Command, error) {
	if version != bodyVersion {
		return nil, fmt.Errorf("body version %d, want %d", version, bodyVersion)
	}
	c := P(new(T))
	if err := json.Unmarshal(body, c); err != nil {
		return nil, err
	}
	return c, nil
}

// v2 decodes a version-1 or version-2 JSON body into a *T (the same
// shape; version 2 uses fields version 1 does not have).
func v2[T any, P interface {
	*T
	Command
}](version byte, body []byte) (Command, error) {
	if version == bodyVersion2 {
		version = bodyVersion
	}
	return v1[T, P](version, body)
}

// Encode returns the log form of cmd: its type byte, the body version and
// the JSON body.
func Encode(cmd Command) ([]byte, error) {
	body, err := json.Marshal(cmd)
	if err != nil {
		return nil, fmt.Errorf("%w: encode command %d: %v", ErrInvalid, cmd.Type(), err)
	}
	return append([]byte{byte(cmd.Type()), versionOf(cmd)}, body...), nil
}

// Codec decodes encoded commands with the dispatch table. The zero value is
// not usable: call NewCodec.
type Codec struct {
	table map[Type]decoder
}

// NewCodec returns a Codec.
func NewCodec() *Codec {
	c := &Codec{table: commandTable()}
	c.table[TypeFenced] = c.decodeFenced
	return c
}

// Decode returns the command encoded in b.
func (c *Codec) Decode(b []byte) (Command, error) {
	if len(b) < 2 {
		return nil, fmt.Errorf("engine: command of %d bytes", len(b))
	}
	dec, ok := c.table[Type(b[0])]
	if !ok {
		return nil, fmt.Errorf("engine: unknown command type %d", b[0])
	}
	cmd, err := dec(b[1], b[2:])
	if err != nil {
		return nil, fmt.Errorf("engine: decode command type %d: %w", b[0], err)
	}
	return cmd, nil
}
