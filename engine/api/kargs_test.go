package api

import (
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// TestInfraEnvKernelArguments: kernel_arguments are taken on create and
// PATCH and shown, as upstream does, as a JSON string; a bad operation or
// an argument unsafe in an iPXE script is a 400 that changes nothing.
func TestInfraEnvKernelArguments(t *testing.T) {
	e := newMemEnv(t)
	var ie models.InfraEnv
	e.must(adminCred(), 201, "POST", "/infra-envs", map[string]any{"name": "kargs", "pull_secret": `{"auths":{}}`,
		"kernel_arguments": []map[string]string{{"operation": "append", "value": "console=ttyS0,115200n8"},
			{"operation": "delete", "value": "quiet"}}}).decode(t, &ie)
	if want := `[{"operation":"append","value":"console=ttyS0,115200n8"},{"operation":"delete","value":"quiet"}]`; ie.KernelArguments != want {
		t.Errorf("kernel_arguments %q, want %q", ie.KernelArguments, want)
	}
	for _, bad := range []map[string]string{{"operation": "prepend", "value": "a"}, {"operation": "append", "value": "a b"},
		{"operation": "append", "value": "x;shell"}, {"operation": "append", "value": ""}} {
		r := e.do(adminCred(), "PATCH", "/infra-envs/"+ie.ID, map[string]any{"kernel_arguments": []map[string]string{bad}})
		e.wantError(r, 400, "kernel_arguments[0]")
	}
	var stored engine.InfraEnv
	e.store.Read(func(m *engine.Model) { stored, _ = m.InfraEnv(ie.ID) })
	if len(stored.KernelArguments) != 2 {
		t.Errorf("a refused PATCH changed the kernel arguments: %+v", stored.KernelArguments)
	}
	var cleared models.InfraEnv
	e.must(adminCred(), 201, "PATCH", "/infra-envs/"+ie.ID, map[string]any{"kernel_arguments": []any{}}).decode(t, &cleared)
	if cleared.ID != ie.ID || cleared.KernelArguments != "" {
		t.Errorf("after clearing: %q", cleared.KernelArguments)
	}
}
