// Command invdump prints the inventory of the machine it runs on as JSON
// between marker lines, for the QEMU test of package inventory (and for
// looking at a machine by hand).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/inventory"
)

func main() {
	inv, err := inventory.Collect(context.Background())
	inventory.LogErrors(slog.New(slog.NewTextHandler(os.Stderr, nil)), err)
	b, jerr := json.Marshal(inv)
	if jerr != nil {
		fmt.Fprintln(os.Stderr, "invdump:", jerr)
		os.Exit(1)
	}
	fmt.Printf("RACKBOOT-INVENTORY-BEGIN\n%s\nRACKBOOT-INVENTORY-END\n", b)
	if err != nil {
		os.Exit(2)
	}
}
