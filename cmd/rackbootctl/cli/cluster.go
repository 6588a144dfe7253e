package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rackboot/rackboot/cluster"
	"github.com/rackboot/rackboot/cluster/clusterapi"
	"github.com/rackboot/rackboot/cluster/rackca"
)

// clusterUsage is the usage of the cluster verbs.
const clusterUsage = `cluster init --dir D [--node-id N]...   create the rack CA in D (ca.crt, ca.key,
                                          secrets.key) and issue each N's files in D/N/
                                          (ca.crt node.crt node.key secrets.key)
  cluster issue --dir D --node-id N       issue a node's files with the CA in D (a new appliance)
  cluster status [-o table|json]          members, leader, term, commit/applied index, lag
  cluster join --node-id N --addr IP:PORT add a voter (the new appliance runs with its [cluster])
  cluster remove NODE-ID                  remove a member`

// maxClusterBody bounds a cluster API answer.
const maxClusterBody = 1 << 20

func (a *app) cluster(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usageError("cluster: which command? (init, issue, status, join, remove)")
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "init":
		return a.clusterInit(rest)
	case "issue":
		return a.clusterIssue(rest)
	case "status":
		return a.clusterStatus(ctx, rest)
	case "join":
		return a.clusterJoin(ctx, rest)
	case "remove":
		return a.clusterRemove(ctx, rest)
	}
	return usageError("cluster: unknown command %q (want init, issue, status, join or remove)", sub)
}

// nodeIDs collects repeated --node-id flags.
type nodeIDs []string

func (n *nodeIDs) String() string     { return strings.Join(*n, ",") }
func (n *nodeIDs) Set(v string) error { *n = append(*n, v); return nil }

func (a *app) clusterInit(args []string) error {
	var dir string
	var ids nodeIDs
	fs := a.flagSet("cluster init")
	fs.StringVar(&dir, "dir", "", "`dir`ectory for the rack CA (created; ca.key stays here, off the appliances)")
	fs.Var(&ids, "node-id", "issue the files of node `id` too (repeat for each appliance)")
	pos, err := a.parse(fs, args, "cluster init --dir D [--node-id N]...")
	if err != nil {
		return err
	}
	if err := exactArgs("cluster init", pos, 0, "no arguments"); err != nil {
		return err
	}
	if dir == "" {
		return usageError("cluster init needs --dir")
	}
	for _, id := range ids {
		if err := rackca.CheckNodeID(id); err != nil {
			return usageError("%v", err)
		}
	}
	ca, err := rackca.Init(dir, a.env.Now())
	if err != nil {
		return err
	}
	fmt.Fprintf(a.env.Stdout, "rack CA created: %s/%s (keep %s private)\n", dir, rackca.CACertFile, rackca.CAKeyFile)
	return a.issueAll(ca, dir, ids)
}

func (a *app) clusterIssue(args []string) error {
	var dir string
	var ids nodeIDs
	fs := a.flagSet("cluster issue")
	fs.StringVar(&dir, "dir", "", "`dir`ectory holding the rack CA (cluster init's)")
	fs.Var(&ids, "node-id", "node `id` to issue files for (repeatable)")
	pos, err := a.parse(fs, args, "cluster issue --dir D --node-id N")
	if err != nil {
		return err
	}
	if err := exactArgs("cluster issue", pos, 0, "no arguments"); err != nil {
		return err
	}
	if dir == "" || len(ids) == 0 {
		return usageError("cluster issue needs --dir and --node-id")
	}
	ca, err := rackca.Load(dir)
	if err != nil {
		return err
	}
	return a.issueAll(ca, dir, ids)
}

func (a *app) issueAll(ca *rackca.CA, dir string, ids []string) error {
	for _, id := range ids {
		out, err := ca.WriteNode(dir, id, a.env.Now())
		if err != nil {
			return err
		}
		fmt.Fprintf(a.env.Stdout, "node %s: %s/{%s,%s,%s} -> copy to /etc/rackboot/cluster/ on that appliance\n",
			id, out, rackca.CACertFile, rackca.NodeCertFile, rackca.NodeKeyFile)
	}
	return nil
}

func (a *app) clusterStatus(ctx context.Context, args []string) error {
	var format string
	fs := a.flagSet("cluster status")
	fs.StringVar(&format, "o", "table", "output `format`: table or json")
	pos, err := a.parse(fs, args, "cluster status [-o table|json]")
	if err != nil {
		return err
	}
	if err := exactArgs("cluster status", pos, 0, "no arguments"); err != nil {
		return err
	}
	if format != "table" && format != "json" {
		return usageError("cluster status: -o must be table or json, not %q", format)
	}
	var st cluster.Status
	if err := a.clusterCall(ctx, http.MethodGet, "", nil, &st); err != nil {
		return err
	}
	return a.printStatus(st, format)
}

func (a *app) clusterJoin(ctx context.Context, args []string) error {
	var id, addr string
	fs := a.flagSet("cluster join")
	fs.StringVar(&id, "node-id", "", "the new member's node `id` (its certificate names it)")
	fs.StringVar(&addr, "addr", "", "the new member's peer `address` ip:port ([cluster] advertise)")
	pos, err := a.parse(fs, args, "cluster join --node-id N --addr IP:PORT")
	if err != nil {
		return err
	}
	if err := exactArgs("cluster join", pos, 0, "no arguments"); err != nil {
		return err
	}
	if id == "" || addr == "" {
		return usageError("cluster join needs --node-id and --addr")
	}
	var st cluster.Status
	if err := a.clusterCall(ctx, http.MethodPost, "/members", clusterapi.MemberRequest{ID: id, Address: addr}, &st); err != nil {
		return err
	}
	fmt.Fprintf(a.env.Stdout, "added %s (%s)\n", id, addr)
	return a.printStatus(st, "table")
}

func (a *app) clusterRemove(ctx context.Context, args []string) error {
	fs := a.flagSet("cluster remove")
	pos, err := a.parse(fs, args, "cluster remove NODE-ID")
	if err != nil {
		return err
	}
	if err := exactArgs("cluster remove", pos, 1, "a node id"); err != nil {
		return err
	}
	var st cluster.Status
	if err := a.clusterCall(ctx, http.MethodDelete, "/members/"+url.PathEscape(pos[0]), nil, &st); err != nil {
		return err
	}
	fmt.Fprintf(a.env.Stdout, "removed %s\n", pos[0])
	return a.printStatus(st, "table")
}

// clusterCall sends a request to the cluster API (clusterapi.Path + path)
// with the admin token and decodes the answer into out.
func (a *app) clusterCall(ctx context.Context, method, path string, in, out any) error {
	base, err := a.serverURL()
	if err != nil {
		return err
	}
	tok, err := a.findToken()
	if err != nil {
		return err
	}
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(base), "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError("server URL %q is not an http(s) URL", base)
	}
	u.Path = clusterapi.Path + path
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := a.env.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, u.Path, scrubToken(err, tok))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxClusterBody))
	if err != nil {
		return fmt.Errorf("%s %s: reading answer: %w", method, u.Path, err)
	}
	if resp.StatusCode/100 != 2 {
		var e clusterapi.Error
		if json.Unmarshal(b, &e) != nil || e.Reason == "" {
			e.Reason = strings.TrimSpace(string(b))
		}
		return fmt.Errorf("%s %s: %s: %s", method, u.Path, resp.Status, e.Reason)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: bad answer: %w", method, u.Path, err)
	}
	return nil
}

// scrubToken keeps the token out of an error's text.
func scrubToken(err error, tok string) error {
	if tok == "" || !strings.Contains(err.Error(), tok) {
		return err
	}
	return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), tok, "[redacted]"))
}

func (a *app) printStatus(st cluster.Status, format string) error {
	if format == "json" {
		enc := json.NewEncoder(a.env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	leader := "none"
	if st.Leader != "" {
		leader = st.Leader + " (" + st.LeaderAddress + ")"
	}
	fmt.Fprintf(a.env.Stdout, "leader %s, term %d, commit index %d (as node %s sees it)\n", leader, st.Term, st.CommitIndex, st.Node)
	tw := tabwriter.NewWriter(a.env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tADDRESS\tVOTER\tSTATE\tTERM\tAPPLIED\tLAG\tLAST CONTACT")
	for _, m := range st.Members {
		voter := "no"
		if m.Voter {
			voter = "yes"
		}
		if m.Stats == nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\tunreachable\t-\t-\t-\t-\n", m.ID, m.Address, voter)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", m.ID, m.Address, voter, m.Stats.State,
			m.Stats.Term, m.Stats.AppliedIndex, m.Lag, lastContact(m.Stats))
	}
	return tw.Flush()
}

// lastContact is how long ago a follower heard from the leader, to the
// millisecond ("-" for the leader itself).
func lastContact(st *cluster.MemberStats) string {
	c := st.LastContact
	if d, err := time.ParseDuration(c); err == nil && st.State != "Leader" {
		return d.Round(time.Millisecond).String()
	}
	if c == "" || st.State == "Leader" {
		return "-"
	}
	return c
}
