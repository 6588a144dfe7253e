package acm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// Kinds of the cluster controller (upstream's groups).
const (
	groupHive    = "hive.openshift.io"
	groupHiveExt = "extensions.hive.openshift.io"
	kindCD       = "ClusterDeployment"
	kindACI      = "AgentClusterInstall"
	kindImageSet = "ClusterImageSet"
)

// Domain is the domain the controllers call (engine/clusters.Domain):
// the same checks, commands and events as the REST API's.
type Domain interface {
	// CreateCluster registers the cluster p describes with id; bad input
	// wraps engine.ErrInvalid and writes nothing.
	CreateCluster(ctx context.Context, p models.ClusterCreateParams, id string) (string, error)
	UpdateCluster(ctx context.Context, id string, p models.V2ClusterUpdateParams) error
	// SetClusterRelease gives cluster id the image set named imageSetRef,
	// else the one of version (bad input wraps engine.ErrInvalid).
	SetClusterRelease(ctx context.Context, id, version, imageSetRef string) error
	PutManifest(ctx context.Context, id string, p models.CreateManifestParams) error
	// DeleteManifest removes a custom manifest of cluster id.
	DeleteManifest(ctx context.Context, id, folder, fileName string) error
	UpdateHost(ctx context.Context, id string, p models.HostUpdateParams) error
	// SetInstallerArgs sets host id's installer_args (bad input wraps
	// engine.ErrInvalid and writes nothing).
	SetInstallerArgs(ctx context.Context, id string, args []string) error
	BindHost(ctx context.Context, hostID, clusterID string) error
	InstallCluster(ctx context.Context, id string) error
	DeleteCluster(ctx context.Context, id string) error
	// DeregisterHost deletes host id of infra-env ie (its event, its
	// cluster re-evaluated).
	DeregisterHost(ctx context.Context, ie, id string) error
	// UnbindHost unbinds host id of infra-env ie from its cluster.
	UnbindHost(ctx context.Context, ie, id string) error
	FailingValidations(id string) []models.FailingValidation
	// AdminCredentials are cluster id's kubeconfig and kubeadmin password
	// once it is finalizing (each empty when its generator made none).
	AdminCredentials(id string) (kubeconfig, password []byte, err error)
}

// ref is a reference by name (corev1.LocalObjectReference).
type ref struct {
	Name string `json:"name"`
}

// cdSpec is the part of a ClusterDeployment's spec mapped.
type cdSpec struct {
	ClusterName    string `json:"clusterName"`
	BaseDomain     string `json:"baseDomain"`
	PullSecretRef  *ref   `json:"pullSecretRef"`
	Installed      bool   `json:"installed"`
	ClusterInstall *struct {
		Group, Kind, Name string
	} `json:"clusterInstallRef"`
}

// aciSpec is the part of an AgentClusterInstall's spec mapped.
type aciSpec struct {
	ClusterDeploymentRef ref  `json:"clusterDeploymentRef"`
	ImageSetRef          *ref `json:"imageSetRef"`
	Networking           struct {
		MachineNetwork []struct{ CIDR string } `json:"machineNetwork"`
		ClusterNetwork []struct {
			CIDR       string `json:"cidr"`
			HostPrefix int64  `json:"hostPrefix"`
		} `json:"clusterNetwork"`
		ServiceNetwork []string `json:"serviceNetwork"`
		NetworkType    string   `json:"networkType"`
	} `json:"networking"`
	SSHPublicKey          string   `json:"sshPublicKey"`
	APIVIP                string   `json:"apiVIP"`
	IngressVIP            string   `json:"ingressVIP"`
	APIVIPs               []string `json:"apiVIPs"`
	IngressVIPs           []string `json:"ingressVIPs"`
	HoldInstallation      bool     `json:"holdInstallation"`
	ProvisionRequirements struct {
		ControlPlaneAgents int `json:"controlPlaneAgents"`
		WorkerAgents       int `json:"workerAgents"`
	} `json:"provisionRequirements"`
}

// install is an AgentClusterInstall with its ClusterDeployment.
type install struct {
	aci    engine.Object
	spec   aciSpec
	cd     engine.Object
	cdSpec cdSpec
	cdOK   bool
}

// reconcileClusters gives every AgentClusterInstall (with its
// ClusterDeployment) its domain cluster (id: the ACI's uid), binds the
// Agents that name the ClusterDeployment, starts the installation when
// the requirements are met and writes the ACI's status; a domain cluster
// whose ACI is gone is deregistered.
func reconcileClusters(ctx context.Context, o Options) {
	var ins []install
	o.Store.Read(func(m *engine.Model) {
		for aci := range m.Objects(groupHiveExt, kindACI, "") {
			in := install{aci: aci}
			_ = decodeSpec(aci, &in.spec)
			cdRef := engine.ObjectRef{Group: groupHive, Kind: kindCD, Namespace: aci.Namespace, Name: in.spec.ClusterDeploymentRef.Name}
			if in.cd, in.cdOK = m.Object(cdRef.Key()); in.cdOK {
				_ = decodeSpec(in.cd, &in.cdSpec)
			}
			ins = append(ins, in)
		}
	})
	for _, in := range ins {
		if err := reconcileInstall(ctx, o, in); err != nil && ctx.Err() == nil {
			o.Log.Warn("AgentClusterInstall not reconciled", "cluster", in.aci.UID, "name", in.aci.Namespace+"/"+in.aci.Name, "err", err)
		}
	}
}

func decodeSpec(obj engine.Object, v any) error {
	var body struct {
		Spec json.RawMessage `json:"spec"`
	}
	if err := json.Unmarshal(obj.Body, &body); err != nil {
		return err
	}
	if len(body.Spec) == 0 {
		return nil
	}
	return json.Unmarshal(body.Spec, v)
}

// reconcileInstall makes the cluster of in if there is none, binds its
// Agents, starts its installation when it can and writes the status.
func reconcileInstall(ctx context.Context, o Options, in install) error {
	id := in.aci.UID
	if in.aci.Deleting() {
		if !slices.Contains(in.aci.Finalizers(), finalizerACI) {
			return nil // another's finalizer holds it
		}
		return deprovision(ctx, o, in)
	}
	if !slices.Contains(in.aci.Finalizers(), finalizerACI) {
		return setFinalizers(ctx, o, in.aci, append(in.aci.Finalizers(), finalizerACI)) // the next pass goes on
	}
	var exists bool
	o.Store.Read(func(m *engine.Model) { _, exists = m.Cluster(id) })
	if exists && !in.cdOK {
		// As upstream: deleting the ClusterDeployment deletes its
		// AgentClusterInstall (whose finalizer then deregisters).
		_, err := o.Store.Apply(ctx, &engine.DeleteObject{Ref: in.aci.ObjectRef, IfRevision: in.aci.Revision})
		if errors.Is(err, engine.ErrConflict) || errors.Is(err, engine.ErrNotFound) {
			return nil
		}
		return err
	}
	if !exists {
		p, err := clusterParams(o, in)
		if err == nil {
			_, err = o.Domain.CreateCluster(ctx, p, id)
		}
		if err != nil {
			return writeACIStatus(ctx, o, in, syncError(err))
		}
		o.Log.Info("AgentClusterInstall created its cluster", "cluster", id, "name", in.aci.Namespace+"/"+in.aci.Name)
	} else if err := syncSpec(ctx, o, in); err != nil {
		return writeACIStatus(ctx, o, in, syncError(err))
	}
	if err := syncManifests(ctx, o, in); err != nil {
		return writeACIStatus(ctx, o, in, syncError(err))
	}
	if err := bindAgents(ctx, o, in); err != nil {
		return writeACIStatus(ctx, o, in, syncError(err))
	}
	if err := autoInstall(ctx, o, in); err != nil {
		o.Log.Warn("installation not started", "cluster", id, "err", err)
	}
	if err := credentials(ctx, o, in); err != nil {
		o.Log.Warn("cluster credentials not written", "cluster", id, "err", err)
	}
	return writeACIStatus(ctx, o, in, nil)
}

// inputError is a spec the controller cannot map.
type inputError struct{ msg string }

func (e inputError) Error() string      { return e.msg }
func (e inputError) Unwrap() error      { return engine.ErrInvalid }
func inputErr(f string, a ...any) error { return inputError{fmt.Sprintf(f, a...)} }

// clusterParams maps the ClusterDeployment, AgentClusterInstall, their
// ClusterImageSet and pull secret onto the REST API's create parameters.
func clusterParams(o Options, in install) (models.ClusterCreateParams, error) {
	var p models.ClusterCreateParams
	if !in.cdOK {
		return p, inputErr("ClusterDeployment %q not found", in.spec.ClusterDeploymentRef.Name)
	}
	cd := in.cdSpec
	if cd.PullSecretRef == nil || cd.PullSecretRef.Name == "" {
		return p, inputErr("ClusterDeployment %q: spec.pullSecretRef is not set", in.cd.Name)
	}
	ps, err := openPullSecret(o, in.cd.Namespace, cd.PullSecretRef.Name)
	if err != nil {
		return p, inputError{err.Error()}
	}
	name := cd.ClusterName
	if name == "" {
		name = in.cd.Name
	}
	p.Name, p.PullSecret, p.BaseDNSDomain, p.SSHPublicKey = &name, &ps, cd.BaseDomain, in.spec.SSHPublicKey
	version, setRef, err := imageSet(o, in.spec.ImageSetRef)
	if err != nil {
		return p, err
	}
	p.OpenshiftVersion, p.ImageSetRef = &version, setRef
	s := in.spec
	cp := int64(s.ProvisionRequirements.ControlPlaneAgents)
	if cp > 0 {
		p.ControlPlaneCount = &cp
	}
	if cp == 1 {
		p.HighAvailabilityMode = "None"
	}
	for _, v := range append(nonEmpty(s.APIVIP), s.APIVIPs...) {
		p.APIVips = append(p.APIVips, models.VIP{IP: v})
	}
	for _, v := range append(nonEmpty(s.IngressVIP), s.IngressVIPs...) {
		p.IngressVips = append(p.IngressVips, models.VIP{IP: v})
	}
	for _, n := range s.Networking.ClusterNetwork {
		p.ClusterNetworks = append(p.ClusterNetworks, models.ClusterNetwork{CIDR: n.CIDR, HostPrefix: n.HostPrefix})
	}
	for _, n := range s.Networking.ServiceNetwork {
		p.ServiceNetworks = append(p.ServiceNetworks, models.Network{CIDR: n})
	}
	for _, n := range s.Networking.MachineNetwork {
		p.MachineNetworks = append(p.MachineNetworks, models.Network{CIDR: n.CIDR})
	}
	if s.Networking.NetworkType != "" {
		p.NetworkType = &s.Networking.NetworkType
	}
	p.HoldInstallation = &s.HoldInstallation
	return p, nil
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// imageSet reads the ClusterImageSet r names: the domain image set of the
// same name when there is one, else the version of its releaseImage (the
// tag up to the architecture), which the domain matches to an image set.
func imageSet(o Options, r *ref) (version, setRef string, err error) {
	if r == nil || r.Name == "" {
		return "", "", inputErr("spec.imageSetRef is not set")
	}
	var (
		obj      engine.Object
		ok, same bool
	)
	o.Store.Read(func(m *engine.Model) {
		obj, ok = m.Object(engine.ObjectRef{Group: groupHive, Kind: kindImageSet, Name: r.Name}.Key())
		_, same = m.ImageSet(r.Name)
	})
	if !ok {
		return "", "", inputErr("ClusterImageSet %q not found", r.Name)
	}
	if same {
		return "", r.Name, nil
	}
	var s struct {
		ReleaseImage string `json:"releaseImage"`
	}
	_ = decodeSpec(obj, &s)
	version = releaseVersion(s.ReleaseImage)
	if version == "" {
		return "", "", inputErr("ClusterImageSet %q: no version in spec.releaseImage %q", r.Name, s.ReleaseImage)
	}
	return version, "", nil
}

// releaseVersion is the version in a release image's tag
// (quay.io/openshift-release-dev/ocp-release:4.14.0-x86_64 → 4.14.0).
func releaseVersion(image string) string {
	i := strings.LastIndex(image, ":")
	if i < 0 || strings.Contains(image[i:], "/") {
		return ""
	}
	tag := image[i+1:]
	for _, arch := range []string{"-x86_64", "-aarch64", "-arm64", "-ppc64le", "-s390x", "-multi"} {
		tag = strings.TrimSuffix(tag, arch)
	}
	return tag
}

// syncError is the SpecSynced condition of err: upstream's InputError for
// what the user must fix, BackendError for the rest.
func syncError(err error) map[string]any {
	if errors.Is(err, engine.ErrInvalid) {
		return cond("SpecSynced", "False", "InputError", "The Spec could not be synced due to an input error: "+err.Error())
	}
	return cond("SpecSynced", "False", "BackendError", "The Spec could not be synced due to backend error: "+err.Error())
}

func cond(typ, status, reason, msg string) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": msg}
}
