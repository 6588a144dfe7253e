package acm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"github.com/rackboot/rackboot/engine/models"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/downloads"
)

// ISOs hands out discovery ISO URLs (*isoserve.Server): ok is false when
// the infra-env's image set names no base ISO.
type ISOs = downloads.ISOs

// PXE hands out an infra-env's PXE boot artifact URLs (*pxeserve.Server):
// kernel, initrd, and the live rootfs ("" when its image set has none).
type PXE = downloads.PXE

// annotationImage holds the digest of the infra-env's image inputs the
// InfraEnv's status was written for: when it changes, the image is
// regenerated (a new isoDownloadURL and createdTime), as upstream's.
const annotationImage = "rackboot.io/image-digest"

// imageDigest sums what infra-env id's discovery image is made of: its
// fields, pull secret and the static network configs it selects ("" when
// it does not exist).
func imageDigest(o Options, id string) string {
	var in struct {
		IE     engine.InfraEnv
		PS     [32]byte
		Static []engine.NMStateConfig
	}
	var ok bool
	o.Store.Read(func(m *engine.Model) {
		if in.IE, ok = m.InfraEnv(id); !ok {
			return
		}
		ps, _ := m.PullSecret(in.IE.PullSecretRef)
		in.PS = sha256.Sum256([]byte(ps))
		for c := range m.NMStateConfigs() {
			if engine.Selects(in.IE.StaticNetworkSelector, c.Labels) {
				c.Meta = engine.Meta{}
				in.Static = append(in.Static, c)
			}
		}
	})
	if !ok {
		return ""
	}
	in.IE.Meta = engine.Meta{}
	b, _ := json.Marshal(in)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// writeImage writes the status of an InfraEnv whose infra-env is made:
// ImageCreated True, the iPXE script's and the ISO's URLs, createdTime,
// and observedGeneration. The URLs and createdTime change when the image
// digest does (a spec, pull secret or NMStateConfig change).
func writeImage(ctx context.Context, o Options, obj engine.Object) error {
	dg := imageDigest(o, obj.UID)
	var body map[string]any
	if err := json.Unmarshal(obj.Body, &body); err != nil {
		return err
	}
	md, st := mapAt(body, "metadata"), mapAt(body, "status")
	ann := mapAt(md, "annotations")
	cond := condition("True", "ImageCreated", "Image has been created")
	_, hasArtifacts := st["bootArtifacts"]
	regen := ann[annotationImage] != dg || !hasArtifacts
	if !regen && sameCondition(st, cond) && observed(st, obj.Generation) {
		return nil
	}
	now := o.Now().UTC().Format(time.RFC3339)
	if regen {
		artifacts, iso, err := imageURLs(ctx, o, obj.UID, dg)
		if err != nil {
			return err
		}
		st["bootArtifacts"], st["createdTime"] = artifacts, now
		if iso != "" {
			st["isoDownloadURL"] = iso
		} else {
			delete(st, "isoDownloadURL")
		}
		ann[annotationImage] = dg
		o.Log.Info("InfraEnv image generated", "infra_env", obj.UID, "digest", dg)
	}
	setCondition(st, cond, now)
	st["observedGeneration"] = obj.Generation
	st["agentLabelSelector"] = map[string]any{"matchLabels": map[string]any{labelInfraEnv: obj.Name}}
	st["debugInfo"] = map[string]any{"eventsURL": o.ServiceURL + models.BasePath + "/events?infra_env_id=" + obj.UID}
	return putBody(ctx, o, obj, body)
}

// imageURLs are the boot artifacts (ipxeScript, kernel, initrd, rootfs)
// and the discovery ISO's URL ("" without a base ISO) of infra-env id
// whose image digest is dg: the domain's (downloads.Service.Image), which
// the REST API's downloads call too.
func imageURLs(ctx context.Context, o Options, id, dg string) (map[string]any, string, error) {
	img, err := o.images.Image(ctx, id, dg)
	if err != nil {
		return nil, "", err
	}
	artifacts := map[string]any{"ipxeScript": img.IPXEScript}
	if img.Kernel != "" {
		artifacts["kernel"], artifacts["initrd"] = img.Kernel, img.Initrd
	}
	if img.Rootfs != "" {
		artifacts["rootfs"] = img.Rootfs
	}
	return artifacts, img.ISO, nil
}

// writeFailed writes ImageCreated False with msg and, as upstream,
// clears the image's URLs and createdTime.
func writeFailed(ctx context.Context, o Options, obj engine.Object, msg string) error {
	var body map[string]any
	if err := json.Unmarshal(obj.Body, &body); err != nil {
		return err
	}
	md, st := mapAt(body, "metadata"), mapAt(body, "status")
	ann := mapAt(md, "annotations")
	cond := condition("False", "ImageCreationError", msg)
	_, has := st["bootArtifacts"]
	if !has && sameCondition(st, cond) && observed(st, obj.Generation) {
		return nil
	}
	for _, k := range []string{"bootArtifacts", "isoDownloadURL", "createdTime"} {
		delete(st, k)
	}
	delete(ann, annotationImage)
	if len(ann) == 0 {
		delete(md, "annotations")
	}
	setCondition(st, cond, o.Now().UTC().Format(time.RFC3339))
	st["observedGeneration"] = obj.Generation
	return putBody(ctx, o, obj, body)
}

// mapAt is m[k] as a map, made (and stored) if missing.
func mapAt(m map[string]any, k string) map[string]any {
	v, ok := m[k].(map[string]any)
	if !ok {
		v = map[string]any{}
		m[k] = v
	}
	return v
}

func observed(st map[string]any, gen int64) bool {
	g, _ := st["observedGeneration"].(float64)
	return int64(g) == gen
}

// sameCondition reports whether st's only condition is cond.
func sameCondition(st, cond map[string]any) bool {
	conds, _ := st["conditions"].([]any)
	if len(conds) != 1 {
		return false
	}
	c, _ := conds[0].(map[string]any)
	for _, k := range []string{"type", "status", "reason", "message"} {
		if c[k] != cond[k] {
			return false
		}
	}
	return true
}

// setCondition makes cond st's condition; its lastTransitionTime moves
// only when its status does (upstream's SetStatusConditionNoHeartbeat).
func setCondition(st, cond map[string]any, now string) {
	cond["lastTransitionTime"], cond["lastProbeTime"] = now, now
	if conds, _ := st["conditions"].([]any); len(conds) == 1 {
		if c, _ := conds[0].(map[string]any); c["status"] == cond["status"] && c["lastTransitionTime"] != nil {
			cond["lastTransitionTime"] = c["lastTransitionTime"]
		}
	}
	st["conditions"] = []any{cond}
}
