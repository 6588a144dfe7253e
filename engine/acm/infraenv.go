package acm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/downloads"
)

// Kinds the controller reads.
const (
	groupAgent   = "agent-install.openshift.io"
	kindInfraEnv = "InfraEnv"
)

// labelUID marks a domain infra-env made from an InfraEnv object.
const labelUID = "rackboot.io/infraenv-uid"

// Options configure the controller.
type Options struct {
	Store      engine.Store // fenced to the leader's term
	Sealer     *engine.Sealer
	Keys       *auth.KeyRing
	ServiceURL string // the REST API's base URL, as hosts reach it
	// Domain registers, binds and installs clusters and updates hosts
	// (engine/clusters.Domain); required.
	Domain Domain
	// ISOs gives the InfraEnvs' isoDownloadURL (nil: none).
	ISOs ISOs
	// PXE gives their kernel, initrd and rootfs boot artifacts (nil: none).
	PXE PXE
	Now func() time.Time
	Log *slog.Logger

	agentHook func(host string) // called before each host's Agent is reconciled (tests)
	memo      *agentMemo        // the revisions each Agent was last reconciled at (Run's)

	// images hands out the InfraEnvs' image URLs (set by complete).
	images *downloads.Service
}

// Run reconciles the InfraEnvs and Agents now and after every change of
// an object, a host or an infra-env, until ctx is done. A batch of
// changes that names only hosts and Agents reconciles only those hosts'
// Agents (the InfraEnvs, clusters and BareMetalHosts are few and are
// reconciled on every pass); any other change, and a new subscription
// (the change feed drops a subscriber that lags too far behind), makes a
// full pass, in which the Agents whose host, Agent and InfraEnv are
// unchanged since they were last reconciled are skipped (agentMemo).
func Run(ctx context.Context, o Options) error {
	o, err := o.complete()
	if err != nil {
		return err
	}
	o.memo = newAgentMemo()
	for ctx.Err() == nil {
		sub := o.Store.Subscribe(ctx)
		reconcileAll(ctx, o, nil)
		for ch := range sub {
			if only, ok := scope(append([]engine.Change{ch}, engine.Queued(sub)...)); ok {
				reconcileAll(ctx, o, only)
			}
		}
	}
	return ctx.Err()
}

// complete checks o and fills in its defaults and the image URLs'
// service.
func (o Options) complete() (Options, error) {
	if o.Domain == nil {
		return o, errors.New("acm: no domain")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	images, err := downloads.New(downloads.Options{Store: o.Store, Keys: o.Keys, ServiceURL: o.ServiceURL,
		ISOs: o.ISOs, PXE: o.PXE, Now: o.Now, Log: o.Log})
	if err != nil {
		return o, fmt.Errorf("acm: %w", err)
	}
	o.images = images
	return o, nil
}

// scope is what a pass after changes must reconcile: ok false when
// nothing (no change the controller reads), only nil for every Agent,
// else the ids of the hosts whose Agents to reconcile.
func scope(chs []engine.Change) (only map[string]bool, ok bool) {
	only = map[string]bool{}
	for _, ch := range chs {
		switch {
		case ch.Kind == engine.KindHost && !ch.Deleted:
			only[ch.ID] = true
		case ch.Kind == engine.KindObject && !ch.Deleted && ch.Object != nil &&
			ch.Object.Group == groupAgent && ch.Object.Kind == kindAgent:
			only[ch.Object.Name] = true // an Agent's name is its host's id
		case ch.Kind == engine.KindObject, ch.Kind == engine.KindHost, ch.Kind == engine.KindInfraEnv,
			ch.Kind == engine.KindCluster, ch.Kind == engine.KindBareMetalHost, ch.Kind == engine.KindAll:
			return nil, true
		}
	}
	return only, len(only) > 0
}

// reconcileAll reconciles the InfraEnvs, clusters and BareMetalHosts,
// and the Agents of the hosts in only (nil: of every host).
func reconcileAll(ctx context.Context, o Options, only map[string]bool) {
	var objs []engine.Object
	made := map[string]string{} // uid → infra-env id
	o.Store.Read(func(m *engine.Model) {
		for obj := range m.Objects(groupAgent, kindInfraEnv, "") {
			objs = append(objs, obj)
		}
		for ie := range m.InfraEnvs() {
			if uid := ie.Labels[labelUID]; uid != "" {
				made[uid] = ie.ID
			}
		}
	})
	for _, obj := range objs {
		delete(made, obj.UID)
		if err := reconcile(ctx, o, obj); err != nil && ctx.Err() == nil {
			o.Log.Warn("InfraEnv not reconciled", "infra_env", obj.Namespace+"/"+obj.Name, "err", err)
		}
	}
	reconcileAgents(ctx, o, objs, only)
	reconcileOrphanAgents(ctx, o, objs, only)
	if err := unbindAgents(ctx, o, objs, only); err != nil && ctx.Err() == nil {
		o.Log.Warn("Agents not unbound", "err", err)
	}
	reconcileClusters(ctx, o)
	reconcileBMHs(ctx, o)
	for _, id := range made {
		if remaining, err := deregisterUnbound(ctx, o, id); err != nil || remaining {
			o.Log.Debug("the infra-env of a deleted InfraEnv keeps hosts bound and not installed", "infra_env", id, "err", err)
			continue
		}
		_, err := o.Store.Apply(ctx, &engine.DeleteInfraEnv{ID: id})
		_, serr := o.Store.Apply(ctx, &engine.DeleteSecret{Name: secretName(id)})
		nerr := syncStatic(ctx, o, id, nil)
		if err := errors.Join(err, serr, nerr); err != nil && !errors.Is(err, engine.ErrNotFound) {
			o.Log.Warn("removing the infra-env of a deleted InfraEnv", "infra_env", id, "err", err)
		}
	}
}

func secretName(id string) string { return "pull-secret-infra-env-" + id }

// spec is the part of an InfraEnv's spec mapped.
type spec struct {
	PullSecretRef *struct {
		Name string `json:"name"`
	} `json:"pullSecretRef"`
	SSHAuthorizedKey string `json:"sshAuthorizedKey"`
	Proxy            *struct {
		HTTPProxy  string `json:"httpProxy"`
		HTTPSProxy string `json:"httpsProxy"`
		NoProxy    string `json:"noProxy"`
	} `json:"proxy"`
	NTPSources       []string                `json:"additionalNTPSources"`
	IgnitionOverride string                  `json:"ignitionConfigOverride"`
	CPUArchitecture  string                  `json:"cpuArchitecture"`
	KernelArguments  []engine.KernelArgument `json:"kernelArguments"`
	NMStateSelector  metav1.LabelSelector    `json:"nmStateConfigLabelSelector"`
}

// reconcile makes or updates the domain infra-env of obj (its spec, pull
// secret and the NMStateConfigs it selects) and writes obj's status.
func reconcile(ctx context.Context, o Options, obj engine.Object) error {
	if obj.Deleting() {
		return nil
	}
	var body struct {
		Spec spec `json:"spec"`
	}
	if err := json.Unmarshal(obj.Body, &body); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	var exists bool
	o.Store.Read(func(m *engine.Model) { _, exists = m.InfraEnv(obj.UID) })
	ps, err := pullSecret(o, obj, body.Spec)
	var static []engine.NMStateConfig
	if err == nil {
		static, err = staticConfigs(o, obj, body.Spec.NMStateSelector)
	}
	switch {
	case err != nil:
	case !exists:
		var clusterID string
		if clusterID, err = refCluster(o, obj); err == nil {
			err = create(ctx, o, obj, body.Spec, ps, clusterID, static)
		}
	default:
		err = update(ctx, o, obj, body.Spec, ps, static)
	}
	if err != nil {
		if errors.Is(err, errTransient) {
			return err
		}
		return writeFailed(ctx, o, obj, "Failed to create image: "+err.Error())
	}
	return writeImage(ctx, o, obj)
}

// pullSecret opens the pull secret the InfraEnv names.
func pullSecret(o Options, obj engine.Object, s spec) (string, error) {
	if s.PullSecretRef == nil || s.PullSecretRef.Name == "" {
		return "", errors.New("spec.pullSecretRef is not set")
	}
	return openPullSecret(o, obj.Namespace, s.PullSecretRef.Name)
}

// openPullSecret opens the .dockerconfigjson of Secret ns/name.
func openPullSecret(o Options, ns, name string) (string, error) {
	return openSecret(o, ns, name, engine.PullSecretKey)
}

// openSecret opens key of Secret ns/name.
func openSecret(o Options, ns, name, key string) (string, error) {
	ref := engine.ObjectRef{Kind: "Secret", Namespace: ns, Name: name}
	var sec engine.Object
	var ok bool
	o.Store.Read(func(m *engine.Model) { sec, ok = m.Object(ref.Key()) })
	if !ok {
		return "", fmt.Errorf("Secret %q not found", ref.Name)
	}
	var sb struct {
		Data map[string]string `json:"data"`
	}
	if err := json.Unmarshal(sec.Body, &sb); err != nil {
		return "", fmt.Errorf("Secret %q: %w", ref.Name, err)
	}
	sealed, err := base64.StdEncoding.DecodeString(sb.Data[key])
	if err != nil || len(sealed) == 0 {
		return "", fmt.Errorf("Secret %q has no %s", ref.Name, key)
	}
	v, err := o.Sealer.Open(ref.SealName(), key, sealed)
	if err != nil {
		return "", fmt.Errorf("Secret %q does not open", ref.Name)
	}
	return string(v), nil
}

// refCluster is the domain cluster of the ClusterDeployment the
// InfraEnv's spec.clusterRef names ("" without one): that of its
// AgentClusterInstall, which must exist.
func refCluster(o Options, ie engine.Object) (string, error) {
	cr, ok := infraEnvClusterRef(ie)
	if !ok {
		return "", nil
	}
	var id string
	var err error
	o.Store.Read(func(m *engine.Model) {
		if _, ok := m.Object(engine.ObjectRef{Group: groupHive, Kind: kindCD, Namespace: cr.Namespace, Name: cr.Name}.Key()); !ok {
			err = fmt.Errorf("ClusterDeployment %s/%s not found", cr.Namespace, cr.Name)
			return
		}
		for aci := range m.Objects(groupHiveExt, kindACI, cr.Namespace) {
			var s aciSpec
			if decodeSpec(aci, &s) == nil && s.ClusterDeploymentRef.Name == cr.Name {
				if _, ok := m.Cluster(aci.UID); ok {
					id = aci.UID
					return
				}
			}
		}
		err = fmt.Errorf("ClusterDeployment %s/%s has no AgentClusterInstall with a cluster yet", cr.Namespace, cr.Name)
	})
	return id, err
}

// desired is the domain infra-env obj's spec describes (no id, cluster
// or meta).
func desired(obj engine.Object, s spec) engine.InfraEnv {
	ie := engine.InfraEnv{Name: obj.Name, PullSecretRef: secretName(obj.UID),
		SSHAuthorizedKey: s.SSHAuthorizedKey, NTPSources: s.NTPSources, IgnitionOverride: s.IgnitionOverride,
		CPUArchitecture: s.CPUArchitecture, KernelArguments: s.KernelArguments, Labels: map[string]string{labelUID: obj.UID}}
	if ie.CPUArchitecture == "" {
		ie.CPUArchitecture = "x86_64"
	}
	if p := s.Proxy; p != nil {
		ie.Proxy = &engine.Proxy{HTTPProxy: p.HTTPProxy, HTTPSProxy: p.HTTPSProxy, NoProxy: p.NoProxy}
	}
	// Always a selector: the BareMetalHost controller adds the network
	// data of a BareMetalHost booting the infra-env with these labels.
	ie.StaticNetworkSelector = map[string]string{labelStaticNet: obj.UID}
	return ie
}

func create(ctx context.Context, o Options, obj engine.Object, s spec, ps, clusterID string, static []engine.NMStateConfig) error {
	ie := desired(obj, s)
	ie.ID, ie.ClusterID = obj.UID, clusterID
	if err := putPullSecret(ctx, o, obj.UID, ps); err != nil {
		return err
	}
	if err := syncStatic(ctx, o, obj.UID, static); err != nil {
		return err
	}
	if _, err := o.Store.Apply(ctx, &engine.CreateInfraEnv{InfraEnv: ie}); err != nil {
		return fmt.Errorf("create infra-env: %w", transient(err))
	}
	o.Log.Info("InfraEnv created its infra-env", "infra_env", obj.UID, "name", obj.Namespace+"/"+obj.Name)
	return nil
}

func condition(status, reason, msg string) map[string]any {
	return map[string]any{"type": "ImageCreated", "status": status, "reason": reason, "message": msg}
}
