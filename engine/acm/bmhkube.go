package acm

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"reflect"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/bmhctl"
)

// reconcileBMHs maps every BareMetalHost object onto a domain
// BareMetalHost (engine/bmhctl drives it) and writes back what upstream's
// BMAC and baremetal-operator show: spec.image, the inspect and
// hardwaredetails annotations, the Agent's bmh label and the status.
func reconcileBMHs(ctx context.Context, o Options) {
	var objs []engine.Object
	o.Store.Read(func(m *engine.Model) {
		for obj := range m.Objects(groupMetal3, kindBMH, "") {
			objs = append(objs, obj)
		}
	})
	keep := map[string]bool{}
	for _, obj := range objs {
		keep[obj.UID] = true
		if obj.Deleting() {
			continue
		}
		log := o.Log.With("bmh", obj.Namespace+"/"+obj.Name)
		want, err := domainBMH(o, obj)
		if err == nil {
			err = syncBMH(ctx, o, obj, want)
		}
		switch {
		case errors.Is(err, errTransient):
			log.Warn("BareMetalHost not reconciled", "err", err)
			continue
		case err != nil:
			err = writeBMHStatus(ctx, o, obj, map[string]any{"operationalStatus": "error",
				"errorType": "registration error", "errorMessage": err.Error()})
		default:
			err = writeBMH(ctx, o, obj, want.Name)
		}
		if err != nil && ctx.Err() == nil {
			log.Warn("BareMetalHost status not written", "err", err)
		}
	}
	deleteStaleBMHs(ctx, o, keep)
}

// bmhView is what writeBMH reads: the domain BareMetalHost, its paired
// host, the Agent of that host and the InfraEnv the BMH's label names.
type bmhView struct {
	b        engine.BareMetalHost
	host     engine.Host
	paired   bool
	agent    engine.Object
	hasAgent bool
	isoURL   string
	labelled bool
}

func readBMHView(o Options, obj engine.Object, name string) (bmhView, bool) {
	var v bmhView
	var ok bool
	o.Store.Read(func(m *engine.Model) {
		if v.b, ok = m.BareMetalHost(name); !ok {
			return
		}
		if v.b.Status.HostID != "" {
			v.host, v.paired = m.Host(v.b.Status.HostID)
			v.agent, v.hasAgent = m.Object(engine.ObjectRef{Group: groupAgent, Kind: kindAgent, Namespace: obj.Namespace, Name: v.b.Status.HostID}.Key())
		}
		if ref := obj.Labels[labelInfraEnv]; ref != "" {
			v.labelled = true
			if ie, ok := m.Object(engine.ObjectRef{Group: groupAgent, Kind: kindInfraEnv, Namespace: obj.Namespace, Name: ref}.Key()); ok {
				var b struct {
					Status struct {
						ISODownloadURL string `json:"isoDownloadURL"`
					} `json:"status"`
				}
				_ = json.Unmarshal(ie.Body, &b)
				v.isoURL = b.Status.ISODownloadURL
			}
		}
	})
	return v, ok
}

// writeBMH writes obj's BMAC fields and status from its domain host
// name, and labels the paired host's Agent with obj's name.
func writeBMH(ctx context.Context, o Options, obj engine.Object, name string) error {
	v, ok := readBMHView(o, obj, name)
	if !ok {
		return nil // made this pass: the next one sees it
	}
	if v.hasAgent && v.agent.Labels[labelAgentBMH] != obj.Name {
		if err := labelAgent(ctx, o, v.agent, obj.Name); err != nil {
			return err
		}
	}
	var body map[string]any
	if err := json.Unmarshal(obj.Body, &body); err != nil {
		return err
	}
	md, spec := mapAt(body, "metadata"), mapAt(body, "spec")
	ann := mapAt(md, "annotations")
	changed := false
	setAnn := func(k, val string) {
		if cur, ok := ann[k]; !ok || cur != val {
			ann[k], changed = val, true
		}
	}
	if v.labelled {
		setAnn(annotationInspect, "disabled")
		if v.isoURL != "" {
			img := map[string]any{"url": v.isoURL, "diskFormat": "live-iso"}
			if !reflect.DeepEqual(spec["image"], img) {
				spec["image"], changed = img, true
			}
		}
	}
	if _, has := ann[annotationHardware]; !has && v.paired {
		if hw := bmhctl.Hardware(v.host); hw != nil {
			b, _ := json.Marshal(hw)
			setAnn(annotationHardware, string(b))
		}
	}
	if v.b.Detached() {
		if _, has := ann[engine.AnnotationDetached]; !has {
			setAnn(engine.AnnotationDetached, "assisted-service-controller")
		}
	}
	st := mapAt(body, "status")
	if setStatus(st, domainStatus(v)) || !observed(st, obj.Generation) {
		changed = true
	}
	if !changed {
		return nil
	}
	return putBody(ctx, o, obj, body)
}

// writeBMHStatus sets obj's status fields st (the others of domainStatus
// removed).
func writeBMHStatus(ctx context.Context, o Options, obj engine.Object, st map[string]any) error {
	var body map[string]any
	if err := json.Unmarshal(obj.Body, &body); err != nil {
		return err
	}
	if !setStatus(mapAt(body, "status"), st) {
		return nil
	}
	return putBody(ctx, o, obj, body)
}

// bmhStatusKeys are the status fields rackboot writes.
var bmhStatusKeys = []string{"operationalStatus", "errorType", "errorMessage", "errorCount", "poweredOn", "provisioning", "hardware"}

// setStatus makes st's managed fields want's; it reports a change.
func setStatus(st, want map[string]any) bool {
	b, _ := json.Marshal(want)
	var norm map[string]any
	_ = json.Unmarshal(b, &norm)
	changed := false
	for _, k := range bmhStatusKeys {
		w, ok := norm[k]
		if !ok {
			if _, has := st[k]; has {
				delete(st, k)
				changed = true
			}
			continue
		}
		if !reflect.DeepEqual(st[k], w) {
			st[k], changed = w, true
		}
	}
	return changed
}

// domainStatus is metal3's status of the domain host: provisioning
// state, power, operational status, error (metal3's error types) and the
// hardware of the paired agent.
func domainStatus(v bmhView) map[string]any {
	s := v.b.Status
	op := s.OperationalStatus
	if op == "" {
		op = engine.BMHStatusOK
	}
	st := map[string]any{"operationalStatus": op, "poweredOn": s.PowerState == "On",
		"provisioning": map[string]any{"state": s.ProvisioningState}}
	if s.ErrorType != "" {
		st["errorType"], st["errorMessage"], st["errorCount"] = metal3ErrorType(s.ErrorType), s.ErrorMessage, s.ErrorCount
	}
	if v.paired {
		if hw := bmhctl.Hardware(v.host); hw != nil {
			st["hardware"] = hw
		}
	}
	return st
}

// metal3ErrorType is metal3's errorType of a domain error type.
func metal3ErrorType(t string) string {
	switch t {
	case "bmc-error":
		return "power management error"
	case "config":
		return "provisioning error"
	}
	return "registration error" // bad-credentials, unreachable, unsupported
}

// labelAgent sets the Agent's agent-install.openshift.io/bmh label.
func labelAgent(ctx context.Context, o Options, a engine.Object, bmh string) error {
	var body map[string]any
	if err := json.Unmarshal(a.Body, &body); err != nil {
		return err
	}
	labels := mapAt(mapAt(body, "metadata"), "labels")
	labels[labelAgentBMH] = bmh
	a.Labels = maps.Clone(a.Labels)
	if a.Labels == nil {
		a.Labels = map[string]string{}
	}
	a.Labels[labelAgentBMH] = bmh
	return putBody(ctx, o, a, body)
}
