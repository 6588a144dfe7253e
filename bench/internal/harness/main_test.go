package harness

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
)

func TestDispatch(t *testing.T) {
	ran := ""
	run := func(_ context.Context, args []string) error { ran = strings.Join(args, " "); return nil }
	loaders := map[string]Loader{"load-x": func(_ context.Context, args []string) (any, error) {
		return nil, errors.New("loader got " + strings.Join(args, " "))
	}}
	if err := dispatch(t.Context(), []string{"-quick"}, loaders, run); err != nil || ran != "-quick" {
		t.Errorf("run: %v, ran %q", err, ran)
	}
	if err := dispatch(t.Context(), []string{"load-x", "-a"}, loaders, run); err == nil || err.Error() != "loader got -a" {
		t.Errorf("loader: %v", err)
	}
}

func TestSpawnDecodesResult(t *testing.T) {
	var out struct{ Downloads int }
	if err := spawn(exec.Command("echo", `{"Downloads": 3}`), &out, "load-x"); err != nil || out.Downloads != 3 {
		t.Errorf("%+v, %v", out, err)
	}
	err := spawn(exec.Command("echo", "not json"), &out, "load-x")
	if !errors.Is(err, ErrLoad) || !strings.Contains(err.Error(), "not json") {
		t.Errorf("garbage: %v", err)
	}
	if err := spawn(exec.Command("false"), &out, "load-x"); !errors.Is(err, ErrLoad) {
		t.Errorf("failing loader: %v", err)
	}
}
