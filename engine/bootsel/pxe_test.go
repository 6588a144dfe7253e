package bootsel_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/boot"
	"github.com/rackboot/rackboot/engine"
)

// An infra-env's PXE artifacts are its image set's profile files, the
// profile's command line with the discovery arguments and the infra-env's
// kernel arguments, and the infra-env's ISO config; no live rootfs for a
// non-CoreOS image set; an unknown infra-env is refused.
func TestInfraEnvPXE(t *testing.T) {
	e := newEnv(t, nil)
	args := []engine.KernelArgument{{Operation: "append", Value: "rd.debug"}}
	e.apply(t, &engine.UpdateInfraEnv{ID: ieA, Patch: engine.InfraEnvPatch{KernelArguments: &args}})
	pxe, err := e.sel.InfraEnvPXE(t.Context(), ieA)
	if err != nil {
		t.Fatal(err)
	}
	if pxe.Kernel != e.kernel || pxe.Initrd != e.initrd || pxe.RootfsImageSet != "" ||
		pxe.Cmdline != "console=ttyS0 ignition.firstboot ignition.platform.id=metal rd.debug" {
		t.Errorf("PXE %+v", pxe)
	}
	ign, _ := e.sel.InfraEnvIgnition(t.Context(), ieA)
	if string(pxe.Ignition) != string(ign) || !strings.Contains(string(ign), "ignition") {
		t.Error("the initrd's config is not the infra-env's ISO config")
	}
	if _, err := e.sel.InfraEnvPXE(t.Context(), "dddddddd-0000-4000-8000-000000000009"); !errors.Is(err, engine.ErrNotFound) || !errors.Is(err, boot.ErrNoBoot) {
		t.Errorf("unknown infra-env: %v", err)
	}
}
