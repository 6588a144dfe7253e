package cli

import (
	"context"
	"fmt"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
)

// signingKeys runs `signing-keys [rotate | retire KID]`: the rack's token
// signing keys (kids only, the active one marked), a rotation, or a
// retirement.
func (a *app) signingKeys(ctx context.Context, args []string) error {
	const usage = "signing-keys [rotate | retire [--] KID]"
	pos, err := a.parse(a.flagSet("signing-keys"), args, usage)
	if err != nil {
		return err
	}
	c, err := a.client()
	if err != nil {
		return err
	}
	var keys *client.SigningKeys
	switch {
	case len(pos) == 0:
		keys, err = c.SigningKeys(ctx)
	case pos[0] == "rotate" && len(pos) == 1:
		keys, err = c.RotateSigningKey(ctx)
	case pos[0] == "retire" && len(pos) == 2:
		if err := c.RetireSigningKey(ctx, pos[1]); err != nil {
			return fmt.Errorf("retire signing key %s: %w", pos[1], err)
		}
		keys, err = c.SigningKeys(ctx)
	default:
		return usageError("usage: rackbootctl %s", usage)
	}
	if err != nil {
		return fmt.Errorf("signing keys: %w", err)
	}
	for _, kid := range keys.KIDs {
		mark := ""
		if kid == keys.ActiveKID {
			mark = "\tactive"
		}
		if err := a.say("%s%s\n", kid, mark); err != nil {
			return err
		}
	}
	return nil
}
