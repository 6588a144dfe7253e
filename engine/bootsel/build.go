package bootsel

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/boot/discovery"
	"github.com/rackboot/rackboot/boot/ignition"
	"github.com/rackboot/rackboot/boot/kargs"
	"github.com/rackboot/rackboot/boot/nmstate"
	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/infraenvs"
	"github.com/rackboot/rackboot/ipxe"
)

// discoveryArgs are the kernel arguments the discovery image needs on top
// of its profile's command line: Ignition runs on this (first) boot and
// takes config.ign from the initrd, on bare metal. A profile that already
// sets one of them keeps its own value.
var discoveryArgs = []string{"ignition.firstboot", "ignition.platform.id=metal"}

// inputs is what one host's discovery config is made of, read from the
// model under its lock.
type inputs struct {
	ie         engine.InfraEnv
	pullSecret string
	secretRev  uint64
	nmstate    []engine.NMStateConfig // selected by ie and listing the MAC
	profile    string                 // the image set's profile name
	// live is set for a CoreOS image set: the image has no agent, so the
	// config fetches the one for goarch.
	live   bool
	goarch string
}

// discovery builds the boot choice of mac under decision d.
func (s *Selector) discovery(ctx context.Context, cur *settings, mac net.HardwareAddr, d Decision) (boot.Choice, error) {
	in, ok := s.read(d.InfraEnvID, mac)
	if !ok { // deleted since Decide
		return boot.Choice{}, fmt.Errorf("%w %s: infra-env %s no longer exists", boot.ErrNoBoot, mac, d.InfraEnvID)
	}
	prof, err := profile(cur, in)
	if err != nil {
		return boot.Choice{}, err
	}
	cmdline, err := kernelArgs(prof.Cmdline)
	if err == nil && len(in.ie.KernelArguments) > 0 {
		if cmdline, err = kargs.Apply(cmdline, in.ie.KernelArguments); err == nil {
			err = ipxe.CheckKernelArgs(cmdline)
		}
	}
	if err != nil {
		return boot.Choice{}, fmt.Errorf("infra-env %s, profile %q: %w", in.ie.ID, prof.Name, err)
	}
	ign, err := s.ignition(in, d.Hostname)
	if err != nil {
		return boot.Choice{}, err
	}
	s.log.DebugContext(ctx, "discovery boot", "mac", mac.String(), "host", d.HostID,
		"infra_env", in.ie.ID, "source", string(d.Source), "profile", prof.Name)
	return boot.Choice{
		Action: boot.ActionBoot, Profile: prof.Name, Hostname: d.Hostname,
		Kernel: prof.Kernel, Initrd: prof.Initrd, Cmdline: cmdline, Ignition: ign,
	}, nil
}

// read gathers the inputs of infra-env id for mac.
func (s *Selector) read(id string, mac net.HardwareAddr) (inputs, bool) {
	var (
		in inputs
		ok bool
	)
	k, _ := keyOf(mac)
	s.opts.Store.Read(func(m *engine.Model) {
		if in.ie, ok = m.InfraEnv(id); !ok {
			return
		}
		in.pullSecret, in.secretRev = m.PullSecret(in.ie.PullSecretRef)
		imageInputs(m, &in)
		s.index.lookup(m, func(ix *macIndex) {
			for _, name := range ix.nmstate[k] {
				if n, ok := m.NMStateConfig(name); ok && engine.Selects(in.ie.StaticNetworkSelector, n.Labels) {
					in.nmstate = append(in.nmstate, n)
				}
			}
		})
	})
	slices.SortFunc(in.nmstate, func(a, b engine.NMStateConfig) int { return strings.Compare(a.Name, b.Name) })
	return in, ok
}

// imageInputs records the boot profile named by the infra-env's image set
// (engine.Model.BootImageSet; "" when none does) and whether it is a
// CoreOS live image set, with its Go architecture.
func imageInputs(m *engine.Model, in *inputs) {
	is, _ := m.BootImageSet(in.ie)
	in.profile = is.Profile
	in.live = is.LiveRootfs.Path != ""
	in.goarch = goArch(is.CPUArchitecture)
}

// goArch is the Go name of a CPU architecture.
func goArch(a string) string {
	switch engine.NormArch(a) {
	case "x86_64":
		return "amd64"
	case "arm64":
		return "arm64"
	}
	return a
}

// agent is the remote rackboot-agent a CoreOS image set's config fetches
// (nil for other image sets); a CoreOS image set without an agent binary
// for its architecture is an error.
func (s *Selector) agent(in inputs) (*discovery.RemoteAgent, error) {
	if !in.live {
		return nil, nil
	}
	a, ok := s.cur.Load().Agents[in.goarch]
	if !ok {
		return nil, fmt.Errorf("%w: infra-env %s: no rackboot-agent binary for %s (server.agent_dir)", ErrNoImage, in.ie.ID, in.goarch)
	}
	return &discovery.RemoteAgent{URL: strings.TrimSuffix(s.opts.ServiceURL, "/") + AgentPath(in.goarch), SHA512: a.SHA512}, nil
}

// RemoteAgent is the rackboot-agent infra-env ie's discovery config
// fetches, read from m (call it under the model's lock): nil unless ie's
// image set is a CoreOS live image set. engine/api hands it to the
// downloaded discovery.ign, so that file is the config a host boots with.
func (s *Selector) RemoteAgent(m *engine.Model, ie engine.InfraEnv) (*discovery.RemoteAgent, error) {
	in := inputs{ie: ie}
	imageInputs(m, &in)
	return s.agent(in)
}

// profile resolves the infra-env's profile, or the default profile.
func profile(cur *settings, in inputs) (boot.Profile, error) {
	name := in.profile
	if name == "" {
		name = cur.DefaultProfile
	}
	if name == "" {
		return boot.Profile{}, fmt.Errorf("%w: infra-env %s: no image set names a boot profile and no default profile is configured",
			ErrNoImage, in.ie.ID)
	}
	p, ok := cur.Profiles.Profile(name)
	if !ok {
		return boot.Profile{}, fmt.Errorf("%w: infra-env %s: boot profile %q is not configured", ErrNoImage, in.ie.ID, name)
	}
	return p, nil
}

// kernelArgs is the profile's command line plus the discovery arguments it
// does not set, checked for iPXE safety.
func kernelArgs(base string) (string, error) {
	if err := ipxe.CheckKernelArgs(base); err != nil {
		return "", fmt.Errorf("kernel arguments: %w", err)
	}
	args := strings.Fields(base)
	for _, a := range discoveryArgs {
		key, _, _ := strings.Cut(a, "=")
		if !slices.ContainsFunc(args, func(x string) bool { k, _, _ := strings.Cut(x, "="); return k == key }) {
			args = append(args, a)
		}
	}
	cmdline := strings.Join(args, " ")
	if err := ipxe.CheckKernelArgs(cmdline); err != nil {
		return "", fmt.Errorf("kernel arguments: %w", err)
	}
	return cmdline, nil
}

// ignition returns the host's config.ign, from the cache when nothing it
// is made of changed.
func (s *Selector) ignition(in inputs, hostname string) ([]byte, error) {
	token, kid, err := s.tokens.get(in.ie.ID)
	if err != nil {
		return nil, fmt.Errorf("infra-env %s: agent token: %w", in.ie.ID, err)
	}
	agent, err := s.agent(in)
	if err != nil {
		return nil, err
	}
	key := cacheKey{infraEnv: in.ie.ID, ieRev: in.ie.Revision, secretRev: in.secretRev,
		nmstate: nmstateKey(in.nmstate), hostname: hostname, kid: kid}
	if agent != nil {
		key.agent = agent.URL + "#" + agent.SHA512
	}
	return s.cache.do(key, func() ([]byte, error) { return s.build(in, token, hostname, agent) })
}

func nmstateKey(ns []engine.NMStateConfig) string {
	var b strings.Builder
	for _, n := range ns {
		fmt.Fprintf(&b, "%s@%d;", n.Name, n.Revision)
	}
	return b.String()
}

// build makes the discovery config of in with the agent token, then adds
// the hostname part.
func (s *Selector) build(in inputs, token, hostname string, agent *discovery.RemoteAgent) ([]byte, error) {
	static := make([]nmstate.HostStaticNetworkConfig, 0, len(in.nmstate))
	for _, n := range in.nmstate {
		static = append(static, infraenvs.StaticNetworkConfig(n))
	}
	din := infraenvs.DiscoveryInput(s.opts.ServiceURL, in.ie, in.pullSecret, token, static)
	din.Agent, din.MaxSize = agent, s.opts.MaxIgnition
	raw, err := discovery.Build(din)
	if err != nil {
		return nil, fmt.Errorf("discovery config of infra-env %s: %w", in.ie.ID, err)
	}
	if hostname == "" {
		return raw, nil
	}
	cfg, err := ignition.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("discovery config of infra-env %s: %w", in.ie.ID, err)
	}
	out, err := cfg.ForHost(hostname)
	if err != nil {
		return nil, fmt.Errorf("discovery config of infra-env %s: %w", in.ie.ID, err)
	}
	return out, nil
}
