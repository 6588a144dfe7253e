package client

import (
	"encoding/json"

	"github.com/rackboot/rackboot/engine/models"
)

// The API's documents are engine/models' (the server's own types): one
// definition for the API, this client and the agent. The aliases keep the
// client's vocabulary. BareMetalHosts have metal3.io/v1alpha1's shape.
type (
	BareMetalHost           = models.BareMetalHost
	BareMetalHostCreate     = models.BareMetalHostCreate
	BareMetalHostPatch      = models.BareMetalHostPatch
	BareMetalHostStatus     = models.BareMetalHostStatus
	BMCCredentials          = models.BMCCredentials
	Cluster                 = models.Cluster
	ClusterCreateParams     = models.ClusterCreateParams
	ClusterProgressInfo     = models.ClusterProgressInfo
	ClusterNetwork          = models.ClusterNetwork
	CreateManifestParams    = models.CreateManifestParams
	Credentials             = models.Credentials
	DiskConfig              = models.DiskConfig
	Event                   = models.Event
	FailingValidation       = models.FailingValidation
	Host                    = models.APIHost
	HostStaticNetworkConfig = models.HostStaticNetworkConfig
	HostUpdateParams        = models.HostUpdateParams
	InfraEnv                = models.InfraEnv
	InfraEnvCreateParams    = models.InfraEnvCreateParams
	InfraEnvUpdateParams    = models.InfraEnvUpdateParams
	MACInterface            = models.MACInterface
	Manifest                = models.Manifest
	Network                 = models.Network
	PresignedURL            = models.PresignedURL
	SigningKeys             = models.SigningKeys
	Proxy                   = models.Proxy
	VIP                     = models.VIP
	WatchEvent              = models.WatchEvent
)

// EventFilter selects events; empty fields do not filter.
type EventFilter struct {
	ClusterID  string
	InfraEnvID string
	HostID     string
}

// Error is upstream's error document (models.Error and InfraError) as the
// client reads it: more lenient than the server's (engine/api's Error), so
// that it also reads the image service's numeric code and the 409's
// validations.
type Error struct {
	Code    json.RawMessage `json:"code,omitempty"` // a string upstream, a number in InfraError
	Href    string          `json:"href,omitempty"`
	ID      int64           `json:"id,omitempty"`
	Kind    string          `json:"kind,omitempty"`
	Message string          `json:"message,omitempty"`
	Reason  string          `json:"reason,omitempty"`
	// Validations are what keeps a cluster from installing (the 409 of
	// actions/install).
	Validations []FailingValidation `json:"validations,omitempty"`
}
