package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
)

// maxFile bounds a file rackbootctl reads (pull secret, key, override).
const maxFile = 1 << 20

// listFlag is a repeatable string flag that also splits on commas.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// optional is &v, or nil for the zero value (a flag that was not given):
// the API's parameters leave nil fields out.
func optional[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

func (a *app) create(ctx context.Context, args []string) error {
	if len(args) > 0 && (args[0] == "manifest" || args[0] == "manifests") {
		return a.createManifest(ctx, args[1:])
	}
	res, args, err := splitResource("create", args, resCluster, resInfraEnv)
	if err != nil {
		return err
	}
	if res == resCluster {
		return a.createCluster(ctx, args)
	}
	return a.createInfraEnv(ctx, args)
}

// secretFiles are the file flags shared by create cluster and infra-env.
type secretFiles struct{ pullSecret, sshKey, format string }

func (s *secretFiles) register(fs *flag.FlagSet) {
	fs.StringVar(&s.pullSecret, "pull-secret-file", "", "`file` holding the pull secret (- for stdin)")
	fs.StringVar(&s.sshKey, "ssh-key-file", "", "`file` holding the SSH public key for the core user")
	fs.StringVar(&s.format, "o", "table", "output `format` of the created object: table, wide, json or yaml")
}

func (a *app) createCluster(ctx context.Context, args []string) error {
	var p client.ClusterCreateParams
	var sf secretFiles
	var apiVIPs, ingressVIPs, machineNets, serviceNets, clusterNets listFlag
	var name, version, networkType, pullSecret string
	var hostPrefix, controlPlane int64
	var sno, hold bool
	fs := a.flagSet("create cluster")
	fs.StringVar(&name, "name", "", "cluster `name` (required)")
	fs.StringVar(&p.BaseDNSDomain, "base-domain", "", "base DNS `domain`")
	fs.StringVar(&version, "version", "", "OpenShift `version`, e.g. 4.16 (required unless --image-set names the image set, whose version is taken)")
	fs.Int64Var(&controlPlane, "control-plane-count", 0, "number of control plane hosts (1 or 3…5)")
	fs.StringVar(&p.CPUArchitecture, "cpu-arch", "", "CPU architecture (x86_64, arm64, …)")
	fs.Var(&apiVIPs, "api-vip", "API virtual `IP` (repeatable)")
	fs.Var(&ingressVIPs, "ingress-vip", "ingress virtual `IP` (repeatable)")
	fs.Var(&machineNets, "machine-network", "machine network `CIDR` (repeatable)")
	fs.Var(&serviceNets, "service-network", "service network `CIDR` (repeatable)")
	fs.Var(&clusterNets, "cluster-network", "cluster (pod) network `CIDR` (repeatable)")
	fs.Int64Var(&hostPrefix, "host-prefix", 23, "prefix length of each node's slice of the cluster networks")
	fs.StringVar(&networkType, "network-type", "", "network `type`: OVNKubernetes or OpenShiftSDN")
	fs.BoolVar(&hold, "hold-installation", false, "keep the cluster from installing until this is cleared")
	fs.StringVar(&p.ImageSetRef, "image-set", "", "`name` of the image set to install (default: the one of --version, else the architecture's first)")
	fs.BoolVar(&sno, "sno", false, "single node: one control-plane host, no VIPs (same as --control-plane-count 1)")
	sf.register(fs)
	pos, err := a.parse(fs, args, "create cluster --name N (--version V | --image-set NAME) [flags]")
	if err != nil {
		return err
	}
	if err := exactArgs("create cluster", pos, 0, "no arguments, only flags"); err != nil {
		return err
	}
	if name == "" || (version == "" && p.ImageSetRef == "") {
		return usageError("create cluster needs --name and --version (or --image-set, whose version the cluster takes)")
	}
	p.Name, p.OpenshiftVersion = &name, &version
	p.ControlPlaneCount, p.NetworkType, p.HoldInstallation = optional(controlPlane), optional(networkType), optional(hold)
	f, err := output.ParseFormat(sf.format)
	if err != nil {
		return usageError("%v", err)
	}
	for _, v := range apiVIPs {
		p.APIVips = append(p.APIVips, client.VIP{IP: v})
	}
	for _, v := range ingressVIPs {
		p.IngressVips = append(p.IngressVips, client.VIP{IP: v})
	}
	for _, n := range machineNets {
		p.MachineNetworks = append(p.MachineNetworks, client.Network{CIDR: n})
	}
	for _, n := range serviceNets {
		p.ServiceNetworks = append(p.ServiceNetworks, client.Network{CIDR: n})
	}
	for _, n := range clusterNets {
		p.ClusterNetworks = append(p.ClusterNetworks, client.ClusterNetwork{CIDR: n, HostPrefix: hostPrefix})
	}
	if err := singleNode(&p, sno); err != nil {
		return err
	}
	if pullSecret, p.SSHPublicKey, err = a.readSecrets(sf); err != nil {
		return err
	}
	p.PullSecret = &pullSecret
	c, err := a.client()
	if err != nil {
		return err
	}
	cl, err := c.CreateCluster(ctx, p)
	if err != nil {
		return fmt.Errorf("creating cluster %q: %w", name, err)
	}
	return a.created(f, "cluster/"+cl.ID, cl, output.Clusters([]*client.Cluster{cl}, f == output.FormatWide, a.env.Now()))
}

// singleNode applies --sno: control plane count 1 and high availability
// mode None, which VIPs contradict.
func singleNode(p *client.ClusterCreateParams, sno bool) error {
	var count int64
	if p.ControlPlaneCount != nil {
		count = *p.ControlPlaneCount
	}
	if !sno && count != 1 {
		return nil
	}
	if sno && count != 0 && count != 1 {
		return usageError("--sno has one control-plane host, not %d", count)
	}
	if len(p.APIVips)+len(p.IngressVips) > 0 {
		return usageError("a single-node cluster has no API or ingress VIPs")
	}
	p.ControlPlaneCount, p.HighAvailabilityMode = new(int64(1)), "None"
	return nil
}

func (a *app) createInfraEnv(ctx context.Context, args []string) error {
	var p client.InfraEnvCreateParams
	var sf secretFiles
	var ntp listFlag
	var httpProxy, httpsProxy, noProxy string
	var name, cluster, pullSecret, sshKey, override, static string
	fs := a.flagSet("create infra-env")
	fs.StringVar(&name, "name", "", "infra-env `name` (required)")
	fs.StringVar(&cluster, "cluster", "", "cluster `ID` or name the hosts join (empty: late binding)")
	fs.StringVar(&p.OpenshiftVersion, "version", "", "OpenShift `version` of the discovery image")
	fs.StringVar(&p.CPUArchitecture, "cpu-arch", "", "CPU architecture (x86_64, arm64, …)")
	fs.StringVar(&p.ImageType, "image-type", "", "full-iso or minimal-iso")
	fs.Var(&ntp, "ntp-source", "additional NTP `source` (repeatable)")
	fs.StringVar(&httpProxy, "http-proxy", "", "HTTP proxy `URL` for discovered hosts")
	fs.StringVar(&httpsProxy, "https-proxy", "", "HTTPS proxy `URL` for discovered hosts")
	fs.StringVar(&noProxy, "no-proxy", "", "comma-separated `list` that bypasses the proxy")
	fs.StringVar(&override, "ignition-override-file", "", "`file` with an Ignition config merged into the discovery Ignition")
	fs.StringVar(&static, "static-network-config", "", "`file` with the static network config list (YAML or JSON: mac_interface_map, network_yaml)")
	sf.register(fs)
	pos, err := a.parse(fs, args, "create infra-env --name N --pull-secret-file F [flags]")
	if err != nil {
		return err
	}
	if err := exactArgs("create infra-env", pos, 0, "no arguments, only flags"); err != nil {
		return err
	}
	if name == "" || sf.pullSecret == "" {
		return usageError("create infra-env needs --name and --pull-secret-file")
	}
	f, err := output.ParseFormat(sf.format)
	if err != nil {
		return usageError("%v", err)
	}
	p.Name, p.ClusterID, p.AdditionalNtpSources = &name, optional(cluster), optional(strings.Join(ntp, ","))
	proxy := client.Proxy{HTTPProxy: optional(httpProxy), HTTPSProxy: optional(httpsProxy), NoProxy: optional(noProxy)}
	if proxy != (client.Proxy{}) {
		p.Proxy = &proxy
	}
	if override != "" {
		if p.IgnitionConfigOverride, err = a.readFile(override, "Ignition override"); err != nil {
			return err
		}
	}
	if static != "" {
		if p.StaticNetworkConfig, err = a.readStaticNetwork(static); err != nil {
			return err
		}
	}
	if pullSecret, sshKey, err = a.readSecrets(sf); err != nil {
		return err
	}
	p.PullSecret, p.SSHAuthorizedKey = &pullSecret, optional(sshKey)
	c, err := a.client()
	if err != nil {
		return err
	}
	if cluster != "" {
		id, err := a.clusterID(ctx, c, cluster)
		if err != nil {
			return err
		}
		p.ClusterID = &id
	}
	ie, err := c.CreateInfraEnv(ctx, p)
	if err != nil {
		return fmt.Errorf("creating infra-env %q: %w", name, err)
	}
	return a.created(f, "infra-env/"+ie.ID, ie, output.InfraEnvs([]*client.InfraEnv{ie}, f == output.FormatWide, a.env.Now()))
}

// created prints a created object: "<kind>/<id> created" for tables.
func (a *app) created(f output.Format, name string, obj any, tab output.Table) error {
	if f.Tabular() {
		_, err := fmt.Fprintf(a.env.Stdout, "%s created\n", name)
		return err
	}
	return output.Write(a.env.Stdout, f, obj, tab)
}

// readSecrets reads the pull secret and SSH key files of sf (empty names
// give empty values).
func (a *app) readSecrets(sf secretFiles) (pullSecret, sshKey string, err error) {
	if sf.pullSecret != "" {
		if pullSecret, err = a.readFile(sf.pullSecret, "pull secret"); err != nil {
			return "", "", err
		}
	}
	if sf.sshKey != "" {
		if sshKey, err = a.readFile(sf.sshKey, "SSH key"); err != nil {
			return "", "", err
		}
	}
	return pullSecret, sshKey, nil
}

// readFile reads a user's file ("-": standard input), at most maxFile
// bytes, trimmed. Errors name the file, never its contents.
func (a *app) readFile(path, what string) (string, error) {
	var r io.Reader
	if path == "-" {
		r = a.env.Stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return "", fmt.Errorf("reading the %s: %w", what, err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxFile+1))
	if err != nil {
		return "", fmt.Errorf("reading the %s from %s: %w", what, path, err)
	}
	if len(b) > maxFile {
		return "", usageError("the %s in %s is larger than %d bytes", what, path, maxFile)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", usageError("the %s file %s is empty", what, path)
	}
	return s, nil
}
