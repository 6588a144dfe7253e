package image

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// BuildIgnitionDefault is BuildIgnition from this repository into
// DefaultCacheDir, the cache the testbed's tests share.
func BuildIgnitionDefault(ctx context.Context) (string, error) {
	repo, err := RepoRoot()
	if err != nil {
		return "", err
	}
	cache, err := DefaultCacheDir()
	if err != nil {
		return "", err
	}
	return BuildIgnition(ctx, repo, cache)
}

// RunIgnition runs the Ignition binary ign's stages fetch-offline, fetch
// and files (as the testbed's images run them) on root with
// the config file cfgPath, keeping its state in runDir, with env added to
// the environment. It returns the stages' combined output up to the first
// that fails, and that failure (naming the stage).
func RunIgnition(ctx context.Context, ign, root, cfgPath, runDir string, env ...string) (string, error) {
	var all strings.Builder
	for _, stage := range [...]string{"fetch-offline", "fetch", "files"} {
		cmd := exec.CommandContext(ctx, ign, "--platform=file", "--stage="+stage, "--root="+root, "--log-to-stdout",
			"--config-cache="+filepath.Join(runDir, "ignition.json"), "--state-file="+filepath.Join(runDir, "state"),
			"--neednet="+filepath.Join(runDir, "neednet"))
		cmd.Env = append(append(os.Environ(), "IGNITION_CONFIG_FILE="+cfgPath), env...)
		out, err := cmd.CombinedOutput()
		all.Write(out)
		if err != nil {
			return all.String(), &StageError{Stage: stage, Err: err}
		}
	}
	return all.String(), nil
}

// StageError is an Ignition stage that failed.
type StageError struct {
	Stage string
	Err   error
}

func (e *StageError) Error() string { return "ignition --stage=" + e.Stage + ": " + e.Err.Error() }

func (e *StageError) Unwrap() error { return e.Err }
