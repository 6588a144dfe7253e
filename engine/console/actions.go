package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/rackboot/rackboot/engine/models"
)

// updateHost applies one host action of the host page's forms (op:
// approve, unapprove, role, hostname, disk) through the API's PATCH.
func (c *Console) updateHost(w http.ResponseWriter, r *http.Request, ss session) {
	ie, id := r.PathValue("ie"), r.PathValue("id")
	var p models.HostUpdateParams
	op := r.PostFormValue("op")
	switch op {
	case "approve", "unapprove":
		ok := op == "approve"
		p.Approved = &ok
	case "role":
		role := r.PostFormValue("role")
		p.HostRole = &role
	case "hostname":
		name := r.PostFormValue("hostname")
		p.HostName = &name
	case "disk":
		disk := r.PostFormValue("disk")
		p.DisksSelectedConfig = []models.DiskConfig{{ID: &disk, Role: "install"}}
	default:
		c.showHost(w, r, ss, http.StatusBadRequest, "unknown action")
		return
	}
	path := "/infra-envs/" + url.PathEscape(ie) + "/hosts/" + url.PathEscape(id)
	if _, err := c.call(r.Context(), http.MethodPatch, path, p); err != nil {
		c.showHost(w, r, ss, statusOf(err), err.Error())
		return
	}
	c.log.InfoContext(r.Context(), "console: host updated", "host", id, "infra_env", ie, "action", op)
	http.Redirect(w, r, Prefix+"hosts/"+url.PathEscape(ie)+"/"+url.PathEscape(id), http.StatusSeeOther)
}

// approve approves the host ("infra-env id/host id") of an Approve
// button of the hosts table, and goes back to the table.
func (c *Console) approve(w http.ResponseWriter, r *http.Request, ss session) {
	ie, id, ok := strings.Cut(r.PostFormValue("host"), "/")
	if !ok {
		http.Error(w, "no host to approve", http.StatusBadRequest)
		return
	}
	yes := true
	path := "/infra-envs/" + url.PathEscape(ie) + "/hosts/" + url.PathEscape(id)
	if _, err := c.call(r.Context(), http.MethodPatch, path, models.HostUpdateParams{Approved: &yes}); err != nil {
		c.render(w, r, statusOf(err), "hosts", page{Title: "Hosts", Nav: "hosts", CSRF: ss.csrf,
			Error: err.Error(), Data: c.hostRows()})
		return
	}
	c.log.InfoContext(r.Context(), "console: host approved", "host", id, "infra_env", ie)
	http.Redirect(w, r, Prefix+"hosts", http.StatusSeeOther)
}

func (c *Console) bmhs(w http.ResponseWriter, r *http.Request, ss session) {
	c.showBMHs(w, r, ss, http.StatusOK, "")
}

func (c *Console) showBMHs(w http.ResponseWriter, r *http.Request, ss session, code int, msg string) {
	var list models.BareMetalHostList
	if err := c.get(r.Context(), "/baremetal-hosts", &list); err != nil {
		c.fail(w, r, ss, err)
		return
	}
	c.render(w, r, code, "bmhs", page{Title: "BareMetalHosts", Nav: "bmhs", CSRF: ss.csrf, Error: msg, Data: list})
}

// power sets a BareMetalHost's spec.online (on or off).
func (c *Console) power(w http.ResponseWriter, r *http.Request, ss session) {
	name := r.PathValue("name")
	on := r.PostFormValue("online") == "true"
	patch := models.BareMetalHostPatch{Spec: &models.BareMetalHostSpecP{Online: &on}}
	if _, err := c.call(r.Context(), http.MethodPatch, "/baremetal-hosts/"+url.PathEscape(name), patch); err != nil {
		c.showBMHs(w, r, ss, statusOf(err), err.Error())
		return
	}
	c.log.InfoContext(r.Context(), "console: BareMetalHost power", "bmh", name, "online", on)
	http.Redirect(w, r, Prefix+"baremetal-hosts", http.StatusSeeOther)
}
