package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/rackboot/rackboot/cmd/rackbootctl/client"
	"github.com/rackboot/rackboot/cmd/rackbootctl/output"
)

// deleted is shown in the STATUS column of a row whose object is gone.
const deleted = "deleted"

// watch polls fetch every interval and prints the rows that are new or
// changed since the last poll (the header once, first). A row that
// disappears is printed once more with STATUS "deleted". Network errors
// and 5xx answers are reported and polling goes on; a 4xx answer (bad
// token, gone infra-env) ends the watch. It returns nil when ctx is done.
func (a *app) watch(ctx context.Context, fetch func(context.Context) (fetched, error), interval time.Duration) error {
	p := output.NewPrinter(a.env.Stdout)
	prev := map[string][]string{}
	var order []string
	header := true
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		got, err := fetch(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil && isAnswer(err):
			return err
		case err != nil:
			fmt.Fprintf(a.env.Stderr, "warning: %v (retrying)\n", err)
		default:
			var changed output.Table
			changed, prev, order = diff(got.tab, prev, order)
			if len(changed.Rows) > 0 || header {
				if err := p.Print(changed, header); err != nil {
					return err
				}
				header = false
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// isAnswer reports whether err is a final answer of the server: a 4xx
// or an undecodable body. Transport errors and 5xx (a restarting or
// leaderless server) are worth retrying.
func isAnswer(err error) bool {
	var ae *client.APIError
	if errors.As(err, &ae) {
		return ae.Status < 500
	}
	return errors.Is(err, client.ErrProtocol)
}

// diff returns the rows of cur that differ from prev, plus rows of
// objects that vanished (marked deleted), and the new state.
func diff(cur output.Table, prev map[string][]string, order []string) (output.Table, map[string][]string, []string) {
	out := output.Table{Header: cur.Header}
	next := make(map[string][]string, len(cur.Rows))
	var nextOrder []string
	for i, row := range cur.Rows {
		k := cur.Keys[i]
		next[k] = row
		nextOrder = append(nextOrder, k)
		if old, ok := prev[k]; !ok || !slices.Equal(old, row) {
			out.Rows = append(out.Rows, row)
			out.Keys = append(out.Keys, k)
		}
	}
	status := cur.Column("STATUS")
	for _, k := range order {
		if _, ok := next[k]; ok || status < 0 {
			continue
		}
		row := slices.Clone(prev[k])
		row[status] = deleted
		out.Rows = append(out.Rows, row)
		out.Keys = append(out.Keys, k)
	}
	return out, next, nextOrder
}
