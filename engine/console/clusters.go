package console

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/engine"

	"github.com/rackboot/rackboot/engine/models"
)

// clusterPage is the cluster page.
type clusterPage struct {
	C           models.Cluster
	Hosts       []hostView
	Blocking    []validation
	HostBlocks  []hostBlock
	CanInstall  bool
	WhyNot      string
	Installing  bool
	Installed   bool
	CanReset    bool
	Credentials *models.Credentials
	Events      []models.Event
}

// hostBlock is a host that keeps the cluster from installing.
type hostBlock struct {
	Name, Why string
}

func (c *Console) clusters(w http.ResponseWriter, r *http.Request, ss session) {
	var cs []models.Cluster
	if err := c.get(r.Context(), "/clusters", &cs); err != nil {
		c.fail(w, r, ss, err)
		return
	}
	c.render(w, r, http.StatusOK, "clusters", page{Title: "Clusters", Nav: "clusters", CSRF: ss.csrf, Data: cs})
}

func (c *Console) cluster(w http.ResponseWriter, r *http.Request, ss session) {
	c.showCluster(w, r, ss, http.StatusOK, "")
}

// showCluster renders the cluster page, with msg as an error when set.
func (c *Console) showCluster(w http.ResponseWriter, r *http.Request, ss session, code int, msg string) {
	ctx := r.Context()
	id := r.PathValue("id")
	p := clusterPage{}
	if err := c.get(ctx, "/clusters/"+url.PathEscape(id), &p.C); err != nil {
		c.fail(w, r, ss, err)
		return
	}
	p.Blocking = blocking(validations(p.C.ValidationsInfo))
	for _, h := range p.C.Hosts {
		v := newHostView(*h)
		p.Hosts = append(p.Hosts, v)
		if !h.Approved {
			p.HostBlocks = append(p.HostBlocks, hostBlock{v.Name, "not approved"})
		}
		for _, b := range blocking(v.Validation) {
			p.HostBlocks = append(p.HostBlocks, hostBlock{v.Name, b.Message})
		}
	}
	p.Installing = slices.Contains(engine.ClusterInstalling(), p.C.Status)
	p.Installed = p.C.Status == engine.ClusterStatusInstalled
	// Cancel and reset are offered where the API accepts them (it decides).
	p.CanReset = p.Installing || p.C.Status == engine.ClusterStatusError || p.C.Status == engine.ClusterStatusCancelled
	p.CanInstall, p.WhyNot = whyNot(p)
	if p.Installed {
		var cr models.Credentials
		if err := c.get(ctx, "/clusters/"+url.PathEscape(id)+"/credentials", &cr); err == nil {
			p.Credentials = &cr
		}
	}
	evs, err := c.events(ctx, url.Values{"cluster_id": {id}})
	if err != nil {
		c.fail(w, r, ss, err)
		return
	}
	p.Events = evs
	c.render(w, r, code, "cluster", page{Title: "Cluster " + p.C.Name, Nav: "clusters", CSRF: ss.csrf, Error: msg, Data: p})
}

// whyNot says whether Install is offered, and why not. The API decides
// (it refuses an install that is not ready); this only words it.
func whyNot(p clusterPage) (bool, string) {
	unapproved := 0
	for _, b := range p.HostBlocks {
		if b.Why == "not approved" {
			unapproved++
		}
	}
	switch {
	case p.C.Status == "ready" && unapproved == 0:
		return true, ""
	case p.C.Status == "ready":
		return false, fmt.Sprintf("%d host(s) not approved yet.", unapproved)
	case p.Installing || p.Installed:
		return false, "The cluster is " + p.C.Status + "."
	}
	why := "The cluster is " + p.C.Status
	if p.C.StatusInfo != "" {
		why += ": " + p.C.StatusInfo
	}
	return false, strings.TrimSuffix(why, ".") + "."
}

// clusterActions are the cluster actions the console offers.
var clusterActions = map[string]bool{"install": true, "cancel": true, "reset": true}

func (c *Console) clusterAction(w http.ResponseWriter, r *http.Request, ss session) {
	id, action := r.PathValue("id"), r.PathValue("action")
	if !clusterActions[action] {
		http.NotFound(w, r)
		return
	}
	if _, err := c.call(r.Context(), http.MethodPost, "/clusters/"+url.PathEscape(id)+"/actions/"+action, nil); err != nil {
		c.showCluster(w, r, ss, statusOf(err), err.Error())
		return
	}
	c.log.InfoContext(r.Context(), "console: cluster action", "cluster", id, "action", action)
	http.Redirect(w, r, Prefix+"clusters/"+url.PathEscape(id), http.StatusSeeOther)
}

// kubeconfig downloads an installed cluster's kubeconfig.
func (c *Console) kubeconfig(w http.ResponseWriter, r *http.Request, ss session) {
	id := r.PathValue("id")
	b, err := c.call(r.Context(), http.MethodGet, "/clusters/"+url.PathEscape(id)+"/downloads/credentials?file_name=kubeconfig", nil)
	if err != nil {
		c.showCluster(w, r, ss, statusOf(err), err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="kubeconfig"`)
	_, _ = w.Write(b)
}
