package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// Targets of issue 10's benchmark.
const (
	targetKubeList     = time.Second
	targetWatchP99     = 100 * time.Millisecond
	targetKubeRSSGrowh = 256 << 20
)

// kubeResult is what the -kube mode measured.
type kubeResult struct {
	opts                    options
	args                    []string
	started                 time.Time
	server                  string
	registerTime, agentTime time.Duration
	settleTime              time.Duration // from all Agents existing until none changed for settleQuiet
	settleChanges           int
	settled                 bool
	registerFailed          int
	polls, pollErrors       int
	agents                  int
	jsonBytes               int
	jsonTime                time.Duration
	tableBytes, tableReqs   int
	tableTime               time.Duration
	kubectl                 []kubectlRun
	verbose                 kubectlRun
	// kubectl get agents -A --chunk-size=0: one request, no throttling.
	unchunked        []kubectlRun
	unchunkedVerbose kubectlRun
	watch            watchResult
	watchErr         error
	// Memory: after start (no hosts), once every Agent exists, and the
	// peak during the list and watch measurements.
	memStart, memAgents, memPeak memory
	load                         [2]string
}

// benchKube is the -kube mode against srv.
func benchKube(ctx context.Context, o options, srv *server, work string) (*kubeResult, error) {
	res := &kubeResult{opts: o, args: os.Args, started: time.Now(), server: srv.kind, load: [2]string{loadAvg()}}
	k, err := newKube(ctx, o, srv, work)
	if err != nil {
		return nil, err
	}
	res.memStart, _ = readMemory(srv.pid())
	ac, err := k.createInfraEnv(ctx, srv)
	if err != nil {
		return nil, err
	}
	sim, err := newSimulator(ac, o.hosts, o.concurrency, runTag(), nil)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	res.registerTime, res.registerFailed = sim.registerAll(ctx, o.concurrency)
	fmt.Fprintf(os.Stderr, "agents: %d hosts registered in %s; waiting for their Agents\n", o.hosts, res.registerTime.Round(time.Millisecond))
	// The hosts keep polling for instructions (upstream's 60 s) as real
	// agents do, so the host monitor keeps them connected and their
	// Agents do not all change at once while the API is measured.
	if o.kubePoll {
		pctx, pstop := context.WithCancel(ctx)
		polled := make(chan int, 1)
		go func() { polled <- sim.pollAll(pctx, o.interval, time.Hour, srv.pid()) }()
		defer func() { pstop(); res.polls = <-polled; res.pollErrors = sim.poll.summarize().Errors }()
	}
	done, err := k.waitAgents(ctx, o.hosts-res.registerFailed, 15*time.Minute)
	if err != nil {
		return nil, err
	}
	res.agentTime = done.Sub(start)
	fmt.Fprintf(os.Stderr, "agents: %d Agents exist; waiting until they settle\n", o.hosts-res.registerFailed)
	if res.settleTime, res.settleChanges, res.settled, err = k.waitSettled(ctx, 5*time.Minute); err != nil {
		return nil, err
	}
	res.memAgents, _ = readMemory(srv.pid())
	saveProfiles(ctx, o.pprofDir, srv, "kube-settled")
	mem := &memSampler{pid: srv.pid()}
	mctx, mstop := context.WithCancel(ctx)
	defer mstop()
	go mem.run(mctx, 100*time.Millisecond)

	// CPU profiles of the list runs (the JSON list, kubectl's and Go's
	// Table pages: about 20 s) and of the watch phase's writes.
	lp := startProfile(ctx, o.pprofDir, srv, "kube-list", 20*time.Second)
	t0 := time.Now()
	list, n, err := k.listAgents(ctx)
	if err != nil {
		return nil, err
	}
	res.jsonTime, res.jsonBytes, res.agents = time.Since(t0), n, len(list.Items)
	fmt.Fprintf(os.Stderr, "agents: %d Agents; timing kubectl get agents -A\n", res.agents)
	if res.kubectl, res.verbose, err = k.timeKubectl(ctx, o.kubectlRuns); err != nil {
		return nil, err
	}
	if res.unchunked, res.unchunkedVerbose, err = k.timeKubectl(ctx, o.kubectlRuns, "--chunk-size=0"); err != nil {
		return nil, err
	}
	if res.tableBytes, res.tableReqs, res.tableTime, err = k.listBytes(ctx); err != nil {
		return nil, err
	}
	lp.wait()
	saveProfiles(ctx, o.pprofDir, srv, "kube-list")
	names := make([]string, 0, len(list.Items))
	for _, it := range list.Items {
		names = append(names, it.Metadata.Name)
	}
	fmt.Fprintf(os.Stderr, "agents: %d watchers, %d writes\n", o.watchers, o.writes)
	fmt.Fprintf(os.Stderr, "agents: kubectl get agents -A: %s; RSS %s after the Agents\n", joinDur(walls(res.kubectl)), mib(res.memAgents.RSS))
	wctx, wcancel := context.WithTimeout(ctx, o.watchLimit)
	defer wcancel()
	wp := startProfile(ctx, o.pprofDir, srv, "kube-watch", time.Duration(o.writes)*(o.writeGap+10*time.Millisecond)+5*time.Second)
	if res.watch, err = k.watchDelays(wctx, o.watchers, list.Metadata.ResourceVersion, names, o.writes, o.writeGap); err != nil {
		res.watchErr = err // the report says so; the other numbers stand
	}
	wp.wait()
	mstop()
	saveProfiles(ctx, o.pprofDir, srv, "kube-watch")
	res.memPeak, _ = mem.result()
	if m, err := readMemory(srv.pid()); err == nil {
		res.memPeak.HWM = m.HWM
	}
	res.load[1] = loadAvg()
	return res, nil
}

// loadAvg is /proc/loadavg's three averages.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

func durs(d []time.Duration) summary {
	s := slices.Clone(d)
	slices.Sort(s)
	out := summary{Count: len(s)}
	if len(s) > 0 {
		out.P50, out.P90, out.P99, out.Max = percentile(s, 50), percentile(s, 90), percentile(s, 99), s[len(s)-1]
	}
	return out
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func (r *kubeResult) markdown() string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("## Kubernetes API: %d Agents, `kubectl get agents -A` and %d watchers\n\n", r.agents, r.opts.watchers)
	w("Command: `go run ./bench/agents %s` (from the repository root; `make bench-kube`)  \n", strings.Join(r.args[1:], " "))
	w("Date: %s  \n", r.started.UTC().Format("2006-01-02 15:04 UTC"))
	w("Machine: %s; load average %s at the start (other sessions' builds and tests share the 2 CPUs)  \n", machine(), r.load[0])
	w("Server: `%s` on 127.0.0.1 (kubectl over HTTPS with the kubeconfig `rackbootctl kubeconfig` prints), DHCP and TFTP off, nice %d  \n\n", r.opts.bin, r.opts.nice)
	w("How the Agents were made: the InfraEnv (with its namespace and pull secret) was created with kubectl as seed 002 does; "+
		"%d simulated hosts registered through the REST agent API with the real agent's client and sent an inventory "+
		"(the registration storm of `bench/agents`, %d in flight): %.1f s, %d failed; the acm controller made one Agent per host: "+
		"all %d existed %.1f s after the storm began.\n\n",
		r.opts.hosts, r.opts.concurrency, r.registerTime.Seconds(), r.registerFailed, r.agents, r.agentTime.Seconds())
	if r.settled {
		w("They then settled (the host monitor picking install disks and validating, the controller writing each Agent's spec and status): "+
			"%d Agent changes in %.1f s, then none for %s; the list and watch were measured from then on.\n\n", r.settleChanges, r.settleTime.Seconds(), settleQuiet)
	} else {
		w("They did NOT settle: %d Agent changes in %.1f s (the limit) with no %s pause; the list and watch were measured while they went on.\n\n",
			r.settleChanges, r.settleTime.Seconds(), settleQuiet)
	}
	if r.opts.kubePoll {
		w("From then on every host polled for its instructions once per %s (upstream's interval), as real agents do, until the end "+
			"(%d polls, %d errors).\n\n", r.opts.interval, r.polls, r.pollErrors)
	} else {
		w("The hosts did not poll after registering (`engine.disconnect_after = \"1h\"` kept them connected; `-kube-poll` " +
			"keeps them polling every 60 s, each check-in a host change that the acm controller reconciles for that host's Agent only).\n\n")
	}
	walls := walls(r.kubectl)
	med := durs(walls).P50
	send, ack := durs(r.watch.FromSend), durs(r.watch.FromAck)
	growth := int64(r.memPeak.RSS) - int64(r.memAgents.RSS)
	w("| Target | Measured | |\n|---|---|---|\n")
	w("| `kubectl get agents -A` < 1 s | median %s of %d runs (%s) | %s |\n", ms(med), len(walls), joinDur(walls), met(med < targetKubeList))
	if r.watchErr != nil {
		w("| watch event p99 < 100 ms at %d watchers | not measured: %s (%d of %d writes done, %d events timed) | NOT met |\n",
			r.opts.watchers, r.watchErr, len(r.watch.WriteRTT), r.opts.writes, len(r.watch.FromSend))
	} else {
		w("| watch event p99 < 100 ms at %d watchers | p99 %s from the write's 200 (p50 %s); p99 %s from sending the write (p50 %s) | %s |\n",
			r.opts.watchers, ms(ack.P99), ms(ack.P50), ms(send.P99), ms(send.P50), met(send.P99 < targetWatchP99))
	}
	w("| RSS growth < 256 MiB | %s during the list and watch runs (VmRSS %s once the Agents existed, peak %s); %s from the empty server (%s) to the peak | %s |\n\n",
		mibSigned(growth), mib(r.memAgents.RSS), mib(r.memPeak.RSS), mibSigned(int64(r.memPeak.RSS)-int64(r.memStart.RSS)), mib(r.memStart.RSS), met(growth < targetKubeRSSGrowh))
	w("- `kubectl get agents -A` (kubectl v1.32, `/usr/bin/kubectl`, discovery cached after the first run): printed %d bytes, %d lines. "+
		"With `-v=6` it made %d list request(s), %s in total by its own log, and waited %s for its own client-side "+
		"rate limiter (client-go's default: 5 requests per second after a burst of 10; any API server gets the same 20 requests "+
		"for 10,000 objects at kubectl's default `--chunk-size=500`) (that run: %s wall).\n",
		r.kubectl[0].Stdout, r.kubectl[0].Lines, r.verbose.Requests, ms(r.verbose.Server), ms(r.verbose.Throttled), ms(r.verbose.Wall))
	if len(r.unchunked) > 0 {
		u := make([]time.Duration, 0, len(r.unchunked))
		for _, run := range r.unchunked {
			u = append(u, run.Wall)
		}
		w("- `kubectl get agents -A --chunk-size=0` (the whole Table in one request, so no throttling): median %s of %d runs (%s); "+
			"with `-v=6` its request took %s by its own log.\n", ms(durs(u).P50), len(u), joinDur(u), ms(r.unchunkedVerbose.Server))
	}
	w("- The same list as kubectl asks for it (Table, `limit=500` and `continue`), from Go: %d response(s), %d bytes (%.1f MiB), %s. "+
		"As JSON (`application/json`, every Agent whole): %d bytes (%.1f MiB), %s.\n",
		r.tableReqs, r.tableBytes, float64(r.tableBytes)/(1<<20), ms(r.tableTime), r.jsonBytes, float64(r.jsonBytes)/(1<<20), ms(r.jsonTime))
	if r.watchErr != nil {
		w("- Watch: %d watchers (Go clients, each on its own HTTPS connection, `?watch=true&resourceVersion=<the list's>`), "+
			"then %d writes, one every %s (JSON merge patches of Agent labels): the phase failed or was cut off after %s: %v. "+
			"%d writes were made, %d watches were started again after failing before their headers.\n\n",
			r.opts.watchers, r.opts.writes, r.opts.writeGap, r.opts.watchLimit, r.watchErr, len(r.watch.WriteRTT), r.watch.Retries)
		return b.String()
	}
	w("- Watch: %d watchers (Go clients, each on its own HTTPS connection, `?watch=true&resourceVersion=<the list's>` as `kubectl get -w` "+
		"resumes) all connected; then %d writes, one every %s, each a JSON merge patch of one Agent's label (as `kubectl patch --type merge`). "+
		"Each write is one raft command; its 200 comes once the command is committed and applied on the appliance, so "+
		"\"from the write's 200\" is the delay from the commit (as the writer learns it) to each watcher's MODIFIED event; "+
		"\"from sending\" adds the write's own round trip (p50 %s, p99 %s). %d events timed, %d missing, %d write errors; "+
		"from the 200, p90 %s and max %s. Besides these, the watchers received %d events of the controllers' own changes "+
		"(%.1f per second per watcher) while the writes ran; %d watches were started again after failing before their "+
		"response headers (the server, busy, dropped their TLS handshake), as kubectl's reflector does.\n\n",
		r.watch.Connected, r.watch.Writes, r.opts.writeGap, ms(durs(r.watch.WriteRTT).P50), ms(durs(r.watch.WriteRTT).P99),
		len(r.watch.FromSend), r.watch.Missing, r.watch.WriteErrors, ms(ack.P90), ms(ack.Max),
		r.watch.Other, float64(r.watch.Other)/float64(max(1, r.watch.Connected))/max(0.001, r.watch.Dur.Seconds()), r.watch.Retries)
	return b.String()
}

func walls(runs []kubectlRun) []time.Duration {
	out := make([]time.Duration, 0, len(runs))
	for _, k := range runs {
		out = append(out, k.Wall)
	}
	return out
}

func joinDur(d []time.Duration) string {
	var s []string
	for _, x := range d {
		s = append(s, ms(x))
	}
	return strings.Join(s, ", ")
}

func mibSigned(b int64) string {
	return fmt.Sprintf("%+.0f MiB", float64(b)/(1<<20))
}
