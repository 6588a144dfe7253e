package console_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// -screenshots DIR writes the browser test's screenshots there
// (make e2e-console SHOTS=docs/console refreshes docs/console.md's).
var screenshots = flag.String("screenshots", "", "directory for the browser test's screenshots")

// chrome is one headless Debian chromium driven over the DevTools
// protocol, with a fresh profile.
type chrome struct {
	t   *testing.T
	ctx context.Context
}

func newChrome(t *testing.T) *chrome {
	t.Helper()
	if os.Getenv("RACKBOOT_E2E_CONSOLE") == "" {
		t.Skip("browser test: set RACKBOOT_E2E_CONSOLE=1 (make e2e-console); needs Debian's chromium")
	}
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not installed (testbed/install-deps.sh installs it): %v", err)
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 800))
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	// The first run starts the browser, which lives as long as the context
	// of that run: not one with a timeout.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return &chrome{t: t, ctx: ctx}
}

// do runs actions, bounded so that a page that never comes fails the
// test with what was being done.
func (c *chrome) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		c.t.Fatalf("browser: %s: %v", what, err)
	}
}

// until waits for a JavaScript predicate to hold on the current page,
// also across a navigation (a form post and its redirect), which ends a
// poll: then it polls the new page.
func (c *chrome) until(what, predicate string) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
	defer cancel()
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(0)))
		if err == nil {
			return
		}
		if ctx.Err() != nil || !navigated(err) {
			c.t.Fatalf("browser: waiting for %s: %v", what, err)
		}
	}
}

// navigated reports whether err says the page went away under a poll.
func navigated(err error) bool {
	for _, s := range []string{"navigated", "context was destroyed", "Cannot find context"} {
		if strings.Contains(err.Error(), s) {
			return true
		}
	}
	return false
}

// clickLoad clicks sel, which submits a form, and waits for the page
// that answers it.
func (c *chrome) clickLoad(what, sel string) {
	c.t.Helper()
	c.load(what, chromedp.Click(sel))
}

// load runs actions that submit a form and waits for the answering page.
func (c *chrome) load(what string, actions ...chromedp.Action[chromedp.Void]) {
	c.t.Helper()
	eval[bool](c, `window.oldPage = true`)
	c.do(what, actions...)
	c.until(what+": the next page", `window.oldPage === undefined && document.readyState === "complete"`)
}

// eval evaluates a JavaScript expression.
func eval[T any](c *chrome, expr string) T {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		c.t.Fatalf("browser: %s: %v", expr, err)
	}
	return v
}

// shot saves a screenshot of the viewport as name.png with -screenshots.
func (c *chrome) shot(name string) {
	c.t.Helper()
	if *screenshots == "" {
		return
	}
	png, err := chromedp.Run(c.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*screenshots, name+".png"), png, 0o644); err != nil {
		c.t.Fatal(err)
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The console in a real browser: a wrong token is refused; sign-in;
// hosts appear live as agents register (one with markup in its hostname,
// shown as text); the cluster's Install button says why it is disabled;
// approving the host makes the cluster ready; Install is clicked and the
// progress bars move with the agent's reports up to installed, without
// the page being reloaded; the kubeconfig downloads.
func TestConsoleBrowser(t *testing.T) {
	c := newChrome(t)
	b := newBed(t)
	clusterID, ie := b.sno()
	lab := b.infraEnv("lab", "")
	base := b.srv.URL + "/console/"

	c.do("a wrong token", chromedp.Navigate(base+"login"), chromedp.SendKeys("#token", "not-the-token"),
		chromedp.Submit("#token"), chromedp.WaitVisible("#error"))
	if msg := eval[string](c, `document.getElementById("error").textContent`); msg != "Wrong token." {
		t.Fatalf("wrong token: page says %q", msg)
	}
	if eval[bool](c, `document.cookie !== "" || location.pathname !== "/console/login"`) {
		t.Error("a wrong token left a cookie or left the sign-in page")
	}
	c.shot("signin-refused")
	c.do("sign in", chromedp.SendKeys("#token", testAdmin), chromedp.Submit("#token"), chromedp.WaitVisible("#host-count"))
	if eval[string](c, `document.cookie`) != "" {
		t.Error("the session cookie is readable from JavaScript")
	}

	// Hosts appear in the open table as agents register.
	c.do("the hosts table", chromedp.Navigate(base+"hosts"), chromedp.WaitVisible("#hosts-table"))
	c.until("the live stream", `document.body.dataset.live === "open"`)
	eval[bool](c, `window.notReloaded = true`)
	a := b.newAgent(ie, hostID(1), "sno-1")
	x := b.newAgent(lab, hostID(9), xssName)
	for range 3 {
		a.poll()
		x.poll()
	}
	b.waitFor("sno-1 known", func(m *engine.Model) bool {
		h, ok := m.Host(hostID(1))
		return ok && h.Status == models.HostStatusKnown
	})
	c.until("both hosts, sno-1 known", `document.querySelector('tr[data-name="sno-1"][data-status="known"]') !== null &&
		[...document.querySelectorAll("#hosts-rows tr")].some(r => r.dataset.name === `+js(xssName)+`)`)
	if !eval[bool](c, `window.notReloaded === true`) {
		t.Error("the hosts table was reloaded instead of updated")
	}
	if got := eval[string](c, `[...document.querySelectorAll("#hosts-rows tr a")].map(a => a.textContent).find(t => t.startsWith("<"))`); got != xssName {
		t.Errorf("the hostname with markup is shown as %q, want the text %q", got, xssName)
	}
	if eval[bool](c, `window.pwned !== undefined || document.querySelector("#hosts-rows script, #hosts-rows img") !== null`) {
		t.Fatal("a hostname injected markup or ran script")
	}
	c.shot("hosts")
	c.do("filter", chromedp.SendKeys("#filter", "sno"))
	if n := eval[int](c, `[...document.querySelectorAll("#hosts-rows tr")].filter(r => !r.hidden).length`); n != 1 {
		t.Errorf("filter sno shows %d rows, want 1", n)
	}

	// Install is disabled and says why until the host is approved.
	c.do("the cluster page", chromedp.Navigate(base+"clusters/"+clusterID), chromedp.WaitVisible("#install"))
	if !eval[bool](c, `document.getElementById("install").disabled`) ||
		eval[string](c, `document.getElementById("why-not").textContent`) != "1 host(s) not approved yet." {
		t.Errorf("before approval: Install disabled=%v, why %q; blocking: %s", eval[bool](c, `document.getElementById("install").disabled`),
			eval[string](c, `document.getElementById("why-not")?.textContent`), eval[string](c, `document.querySelector(".blocking")?.textContent`))
	}
	c.shot("cluster-not-approved")
	c.do("the hosts table", chromedp.Navigate(base+"hosts"), chromedp.WaitVisible(`button[aria-label="Approve sno-1"]`))
	// With the keyboard: focus the button, press Enter.
	c.load("approve sno-1", chromedp.Focus(`button[aria-label="Approve sno-1"]`), chromedp.KeyEvent("\r"))
	c.until("sno-1 approved", `location.pathname === "/console/hosts" &&
		document.querySelector('tr[data-name="sno-1"] td:last-child')?.textContent.trim() === "yes"`)
	if !approved(b.store, hostID(1)) {
		t.Fatal("the Approve button did not approve the host")
	}

	// The cluster becomes ready; Install; the progress follows the agent.
	c.do("the cluster page", chromedp.Navigate(base+"clusters/"+clusterID), chromedp.WaitVisible("#install"))
	c.until("Install enabled", `!document.getElementById("install").disabled`)
	c.do("the host page", chromedp.Navigate(base+"hosts/"+ie+"/"+hostID(1)), chromedp.WaitVisible("#hostname"))
	c.shot("host")
	c.do("the cluster page", chromedp.Navigate(base+"clusters/"+clusterID), chromedp.WaitVisible("#install"))
	c.shot("cluster-ready")
	c.clickLoad("click Install", "#install")
	b.waitFor("sno-1 installing", func(m *engine.Model) bool {
		h, ok := m.Host(hostID(1))
		return ok && h.Status == models.HostStatusInstalling
	})
	c.until("the cluster page after Install", `location.pathname === "/console/clusters/`+clusterID+`" && document.body.dataset.live === "open"`)
	eval[bool](c, `window.notReloaded = true`)
	if ran := a.poll(); len(ran) == 0 || ran[0] != models.StepTypeInstall {
		t.Fatalf("the installing host was handed %v, want the install step", ran)
	}
	a.progress(models.HostStageStartingInstallation, "")
	a.progress(models.HostStageInstalling, "")
	a.progress(models.HostStageWritingImageToDisk, "50%")
	pct := hostPercent(b, hostID(1))
	c.until("the progress bar at the host's percentage", `document.querySelector("progress.host-progress")?.value === `+js(pct)+
		` && document.querySelector(".stages .active")?.textContent === "Writing image to disk"`)
	c.shot("cluster-installing")
	a.progress(models.HostStageRebooting, "")
	a.progress(models.HostStageDone, "")
	c.until("installed", `document.getElementById("cluster-status")?.textContent === "installed" &&
		document.getElementById("kubeconfig") !== null`)
	if !eval[bool](c, `window.notReloaded === true`) {
		t.Error("the cluster page was reloaded instead of updated")
	}
	c.shot("cluster-installed")
	c.do("the kubeconfig", chromedp.Evaluate[chromedp.Void](`window.kc = null; fetch(document.getElementById("kubeconfig").href).then(r => r.text()).then(t => window.kc = t)`))
	c.until("the kubeconfig", `window.kc !== null`)
	if got := eval[string](c, `window.kc`); got != testKubeconfig {
		t.Errorf("kubeconfig download %q", got)
	}

	c.do("the overview", chromedp.Navigate(base), chromedp.WaitVisible("#host-count"))
	if got := eval[string](c, `document.getElementById("host-count").textContent`); got != "2" {
		t.Errorf("the overview counts %s hosts, want 2", got)
	}
	c.shot("overview")
	c.do("the infra-envs", chromedp.Navigate(base+"infra-envs"), chromedp.WaitVisible("#script-0"))
	c.shot("infraenvs")

	// On a phone.
	c.do("phone", chromedp.EmulateViewport(390, 844))
	for _, p := range []string{"", "infra-envs", "clusters", "clusters/" + clusterID, "hosts/" + ie + "/" + hostID(1),
		"baremetal-hosts", "hosts"} {
		c.do("phone: "+p, chromedp.Navigate(base+p), chromedp.WaitVisible("h1"))
		if w := eval[int](c, `document.documentElement.scrollWidth`); w > 391 {
			t.Errorf("/console/%s is %d px wide on a 390 px phone", p, w)
		}
	}
	c.shot("hosts-phone")
}

// hostPercent is the installation percentage the API reports for a host.
func hostPercent(b *bed, id string) int {
	var pct int
	b.store.Read(func(m *engine.Model) {
		if h, ok := m.Host(id); ok {
			pct = h.Progress.InstallationPercentage
		}
	})
	return pct
}

// A thousand hosts: the table shows them all, filters and sorts them, and
// a change of one host reaches the open page. Timings are logged (make
// e2e-console -v), not asserted.
func TestConsoleBrowserThousandHosts(t *testing.T) {
	c := newChrome(t)
	b := newBed(t)
	ie := b.infraEnv("rack", "")
	start := time.Now()
	b.registerMany(ie, 1000)
	t.Logf("1000 hosts registered with inventories in %v", time.Since(start).Round(time.Millisecond))
	base := b.srv.URL + "/console/"
	c.do("sign in", chromedp.Navigate(base+"login"), chromedp.SendKeys("#token", testAdmin), chromedp.Submit("#token"),
		chromedp.WaitVisible("#host-count"))
	start = time.Now()
	c.do("the hosts table", chromedp.Navigate(base+"hosts"), chromedp.WaitVisible("#hosts-table"))
	t.Logf("hosts page with 1000 rows loaded in %v", time.Since(start).Round(time.Millisecond))
	if n := eval[int](c, `document.querySelectorAll("#hosts-rows tr").length`); n != 1000 {
		t.Fatalf("%d rows, want 1000", n)
	}
	c.until("the live stream", `document.body.dataset.live === "open"`)
	ms := eval[float64](c, `(() => { const t0 = performance.now(); const f = document.getElementById("filter");
		f.value = "rack-09"; f.dispatchEvent(new Event("input", {bubbles: true})); return performance.now() - t0; })()`)
	if n := eval[int](c, `[...document.querySelectorAll("#hosts-rows tr")].filter(r => !r.hidden).length`); n != 100 {
		t.Errorf("filter rack-09 shows %d rows, want 100", n)
	}
	t.Logf("filtering 1000 rows took %.1f ms in the page", ms)
	ms = eval[float64](c, `(() => { const t0 = performance.now(); document.querySelector('button[data-sort="name"]').click();
		return performance.now() - t0; })()`)
	if first := eval[string](c, `[...document.querySelectorAll("#hosts-rows tr")].find(r => !r.hidden).dataset.name`); first != "rack-0999" {
		t.Errorf("sorted by hostname descending, the first row shown is %q", first)
	}
	t.Logf("sorting 1000 rows took %.1f ms in the page", ms)
	// One host changes: the open page follows, keeping filter and sort.
	b.admin("PATCH", "/infra-envs/"+ie+"/hosts/"+hostID(1000+998), map[string]any{"host_name": "rack-0999-renamed"}, nil)
	start = time.Now()
	c.until("the renamed host", `document.querySelector('tr[data-name="rack-0999-renamed"]') !== null &&
		[...document.querySelectorAll("#hosts-rows tr")].filter(r => !r.hidden).length === 100`)
	t.Logf("a change reached the open 1000-row table in %v", time.Since(start).Round(time.Millisecond))
}
