package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
)

// command runs one verb with the arguments after it.
type command func(ctx context.Context, args []string) error

func (a *app) commands() map[string]command {
	return map[string]command{
		"get":      a.kubeOr("get", a.bmhOr("get", a.get)), // kube.go
		"describe": a.kubeOr("describe", a.bmhOr("describe", a.describe)),
		"create":   a.bmhOr("create", a.create),
		"delete":   a.kubeOr("delete", a.bmhOr("delete", a.delete)),
		"apply":    a.apply, // kapply.go
		"wait":     a.wait,  // kwait.go
		"approve":  a.approve,
		"patch":    a.patch,
		"bind":     a.bind,
		"unbind":   a.unbind,
		"download": a.download,
		"install":  a.install,
		"cancel":   a.cancel,
		"reset":    a.reset,
		"cluster":  a.cluster, // cluster.go
		"backup":   a.backup,  // backup.go

		"allow-add-workers": a.allowAddWorkers,
		"image-url":         a.imageURL,
		"signing-keys":      a.signingKeys, // keys.go
		"kubeconfig":        a.kubeconfig,  // kubeconfig.go
		"version":           a.version,
		"help":              a.help,
	}
}

// resource kinds and the names the user may type for them.
const (
	resCluster  = "cluster"
	resInfraEnv = "infra-env"
	resHost     = "host"
	resEvent    = "event"
)

// resourceOf maps what the user typed to a resource kind.
func resourceOf(s string) (string, bool) {
	switch strings.ToLower(s) {
	case "cluster", "clusters":
		return resCluster, true
	case "infra-env", "infra-envs", "ie":
		return resInfraEnv, true
	case "host", "hosts":
		return resHost, true
	case "event", "events", "ev":
		return resEvent, true
	}
	return "", false
}

// splitResource takes the resource word first in args (before any flag).
func splitResource(verb string, args []string, allowed ...string) (string, []string, error) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", nil, usageError("%s: which resource? (%s)", verb, strings.Join(allowed, ", "))
	}
	res, ok := resourceOf(args[0])
	if ok {
		for _, r := range allowed {
			if r == res {
				return res, args[1:], nil
			}
		}
	}
	return "", nil, usageError("%s: unknown resource %q (want %s)", verb, args[0], strings.Join(allowed, ", "))
}

// exactArgs checks the number of positional arguments.
func exactArgs(what string, pos []string, n int, names string) error {
	if len(pos) != n {
		return usageError("%s takes %s (got %d arguments)", what, names, len(pos))
	}
	return nil
}

func (a *app) help(_ context.Context, _ []string) error {
	a.usage(a.env.Stdout)
	return nil
}

func (a *app) usage(w io.Writer) {
	fmt.Fprint(w, `rackbootctl talks to rackbootd's REST API (/api/assisted-install/v2) and to its
Kubernetes-compatible API (the ACM kinds: InfraEnv, Agent, AgentClusterInstall, ...).

Usage: rackbootctl [--url URL] [--token TOKEN] [--data-dir DIR] [--config FILE] [-v] COMMAND ...

Commands:
  get clusters|infra-envs|hosts|events [ID|NAME] [-o table|wide|json|yaml|progress|name|jsonpath=T] [-w]
        hosts:  [--infra-env ID] [--cluster ID]   events: [--cluster|--infra-env|--host ID]
        -w streams changes (hosts: the server's watch stream; the rest poll every
        --interval); with -o json one document a line, with -o yaml "---" documents;
        --output-watch-events wraps each in {type: ADDED|MODIFIED|DELETED, object};
        hosts -o progress (the default of -w on a terminal): a line per host with
        its role, status, install stage and a progress bar, redrawn in place
  describe host ID|NAME [--infra-env ID] | describe cluster ID|NAME | describe infra-env ID|NAME
                             (fields, inventory, hosts, validations)
  create cluster --name N --version V [--base-domain D] [--control-plane-count 1|3|5] [--sno]
        [--pull-secret-file F] [--ssh-key-file F] [--api-vip IP] [--ingress-vip IP]
        [--machine-network CIDR] [--cluster-network CIDR --host-prefix N]
        [--service-network CIDR] [--network-type T] [--image-set NAME] [--hold-installation]
  create infra-env --name N --pull-secret-file F [--cluster ID] [--ssh-key-file F]
        [--ntp-source S] [--http-proxy URL] [--https-proxy URL] [--no-proxy L]
        [--static-network-config F] [--ignition-override-file F] ...
  delete cluster|infra-env|host ID
  create bmh -f FILE         BareMetalHosts (metal3 YAML, with their credentials Secret)
  get bmh [NAME] [-o table|wide|json|yaml] | describe bmh NAME | delete bmh NAME
  approve host ID
  patch host ID [--role master|worker|auto-assign] [--hostname H] [--installation-disk DISK-ID]
        [--ignition-override-file F | --clear-ignition-override]
  patch cluster C --install-config-overrides-file F | --clear-install-config-overrides
  get install-config C | get manifests C
  create manifest --cluster C --file F [--folder manifests|openshift] [--name N]
  patch infra-env ID [--ssh-key-file F] [--pull-secret-file F] [--ntp-source S]
        [--ignition-override-file F] [--static-network-config F | --clear-static-network]
  bind host ID --cluster ID
  unbind host ID
  install CLUSTER [-w]       start the installation (409: prints the failing validations);
                             -w follows it with a progress bar per host until installed
  install host ID|NAME       install a day-2 host (after allow-add-workers)
  cancel CLUSTER | reset CLUSTER | allow-add-workers CLUSTER
  download discovery-ignition|ipxe-script --infra-env ID [-o FILE]
  download credentials kubeconfig|kubeadmin-password --cluster C [-o FILE]
  download files install-config.yaml|bootstrap.ign|master.ign|worker.ign|metadata.json --cluster C [-o FILE]
  image-url INFRA-ENV-ID      the discovery ISO's URL (the iPXE script's without a base ISO)
  signing-keys [rotate | retire KID]
                             the rack's token signing keys; rotate: a new key signs,
                             the old ones still verify; retire: tokens of KID fail
  `+clusterUsage+`
  `+backupUsage+`
  apply -f FILE|DIR|- [-R] [-n NS] [--dry-run=server]
                             create or update every object of the manifests (multi-document YAML
                             or JSON) through the Kubernetes-compatible API, Namespaces, Secrets,
                             ConfigMaps and ClusterImageSets first: KIND/NAME created|configured|unchanged
  delete -f FILE|DIR|- [-R] [-n NS] [--ignore-not-found] [--wait=false] [--timeout=5m]
                             the same objects, in the reverse order, waiting until they are gone
  get KIND[,KIND] [NAME...] | KIND/NAME  [-n NS | -A] [-l SELECTOR] [-o wide|yaml|json|name|jsonpath=T] [-w]
  describe KIND [NAME] [-n NS]  |  delete KIND NAME... [-n NS]
        KIND: any kind of the Kubernetes-compatible API as kubectl names it: infraenv(s),
        agent(s), aci, cd, clusterimagesets, nmstateconfigs, agentserviceconfigs,
        baremetalhosts, namespaces, secrets, configmaps, events, or plural.group; a NAME
        without -n is looked up in every namespace (in several: pass -n)
  wait --for=condition=NAME[=VALUE]|delete KIND/NAME... [-n NS] [--timeout=30s]
                             watch until the condition holds or the object is gone
  kubeconfig [--ca-file FILE] a kubeconfig for kubectl against rackbootd's Kubernetes-compatible
                             API (the server URL, the admin token): rackbootctl kubeconfig > rb.kubeconfig
  version

The server is --url, else RACKBOOT_URL, else the config file's url, else
`+DefaultURL+`. The admin token is --token, else RACKBOOT_TOKEN, else the config
file's token, else the file <data-dir>/admin-token (--data-dir, else the config's
token_file or data_dir, else `+DefaultDataDir+`). The config file is --config,
else RACKBOOT_CONFIG, else ~/.config/rackboot/rackbootctl.toml (TOML: url,
token, token_file, data_dir). Pull secret files may be "-" for standard input.
A host may be named by its ID or its hostname (requested, else the inventory's),
a cluster (CLUSTER, C) and an infra-env by its ID or its name (wherever an ID is
taken; a name several share is an error listing their IDs).
REST resources may be singular or plural: cluster(s), infra-env(s) (also ie),
host(s), event(s); infraenv(s) and agent(s) are the Kubernetes kinds.
Run 'rackbootctl COMMAND RESOURCE -h' for the flags of a command.
Exit codes: 0 ok, 1 the server or the network refused, 2 usage error.
`)
}

// isNetError reports whether err is a transport failure (refused,
// unreachable, timeout) rather than an answer.
func isNetError(err error) bool {
	var op *net.OpError
	var ue *url.Error
	var dns *net.DNSError
	return errors.As(err, &op) || errors.As(err, &ue) || errors.As(err, &dns)
}
