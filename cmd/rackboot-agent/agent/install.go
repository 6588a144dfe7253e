package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/steps"
	"github.com/rackboot/rackboot/engine/models"
)

// ErrRebooted: the install step wrote the disk and the agent rebooted the
// machine (Run returns it only when Reboot returns, as a test's does).
var ErrRebooted = errors.New("agent: rebooted into the installed disk")

// install runs an install step alone, posts its reply and, when the step
// asks for it, reboots the machine: the disk is written and stage
// Rebooting reported, so the next boot falls through to the disk even if
// the reply was lost.
func (a *Agent) install(ctx context.Context, hostID string, st *models.Step) error {
	reply, err := a.runOne(ctx, hostID, st)
	var res steps.InstallResult
	if reply.ExitCode != 0 || json.Unmarshal([]byte(reply.Output), &res) != nil || !res.Reboot {
		return err // failed, or a BMH controller resets the host: keep polling
	}
	log := a.log().With("host", hostID, "step_id", st.StepID)
	if a.Reboot == nil {
		log.Error("install done but this agent has no reboot function; not rebooting")
		return err
	}
	log.Info("install done; rebooting into the installed disk", "device", res.BootDevice)
	if rerr := a.Reboot(ctx); rerr != nil {
		log.Error("reboot failed; polling on", "err", rerr)
		return err
	}
	return ErrRebooted
}

// SystemReboot flushes the file systems and restarts the machine at once
// (reboot(2), LINUX_REBOOT_CMD_RESTART). It only returns on failure.
func SystemReboot(context.Context) error {
	unix.Sync()
	if err := unix.Reboot(unix.LINUX_REBOOT_CMD_RESTART); err != nil {
		return fmt.Errorf("agent: reboot: %w", err)
	}
	return nil
}
