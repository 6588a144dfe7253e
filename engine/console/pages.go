package console

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/models"
)

// recentEvents is how many events the overview shows.
const recentEvents = 15

// overviewData is the overview page. Its counts and lists come from the
// model directly (counting needs no API document of every host).
type overviewData struct {
	Rack     Rack
	Leader   bool
	Counts   []count
	Hosts    int
	Leases   int
	Clusters []clusterItem
	Events   []models.Event
}

// clusterItem is a cluster in the overview's list.
type clusterItem struct{ ID, Name, Status string }

type count struct {
	Status string
	N      int
}

func (c *Console) overview(w http.ResponseWriter, r *http.Request, ss session) {
	ctx := r.Context()
	d := overviewData{Rack: c.rack.get(ctx), Leader: c.store.Leader()}
	byStatus := map[string]int{}
	c.store.Read(func(m *engine.Model) {
		for h := range m.Hosts() {
			byStatus[h.Status]++
			d.Hosts++
		}
		for range m.Leases() {
			d.Leases++
		}
		for c := range m.Clusters() {
			d.Clusters = append(d.Clusters, clusterItem{c.ID, c.Name, c.Status})
		}
	})
	for _, s := range slices.Sorted(maps.Keys(byStatus)) {
		d.Counts = append(d.Counts, count{s, byStatus[s]})
	}
	var err error
	if d.Events, err = c.events(ctx, url.Values{}); err != nil {
		c.fail(w, r, ss, err)
		return
	}
	c.render(w, r, http.StatusOK, "overview", page{Title: "Overview", Nav: "overview", CSRF: ss.csrf, Data: d})
}

// events returns the latest events matching q, newest first.
func (c *Console) events(ctx context.Context, q url.Values) ([]models.Event, error) {
	var evs []models.Event
	if err := c.get(ctx, "/events?"+q.Encode(), &evs); err != nil {
		return nil, err
	}
	slices.Reverse(evs)
	return evs[:min(len(evs), recentEvents)], nil
}

// allHosts lists the hosts of every infra-env.
func (c *Console) allHosts(ctx context.Context) ([]models.APIHost, error) {
	var ies []models.InfraEnv
	if err := c.get(ctx, "/infra-envs", &ies); err != nil {
		return nil, err
	}
	var out []models.APIHost
	for _, ie := range ies {
		var hs []models.APIHost
		if err := c.get(ctx, "/infra-envs/"+ie.ID+"/hosts", &hs); err != nil {
			return nil, err
		}
		out = append(out, hs...)
	}
	return out, nil
}

// infraEnvView is an infra-env with its boot URLs and hosts.
type infraEnvView struct {
	IE            models.InfraEnv
	ISOURL        string // the discovery ISO (when the image set has one)
	IPXEScriptURL string
	IPXEScript    string
	Hosts         []hostRow
}

func (c *Console) infraEnvs(w http.ResponseWriter, r *http.Request, ss session) {
	ctx := r.Context()
	var ies []models.InfraEnv
	if err := c.get(ctx, "/infra-envs", &ies); err != nil {
		c.fail(w, r, ss, err)
		return
	}
	views := make([]infraEnvView, 0, len(ies))
	for _, ie := range ies {
		v := infraEnvView{IE: ie}
		c.bootURLs(ctx, &v)
		var hs []models.APIHost
		if err := c.get(ctx, "/infra-envs/"+ie.ID+"/hosts", &hs); err != nil {
			c.fail(w, r, ss, err)
			return
		}
		for _, h := range hs {
			v.Hosts = append(v.Hosts, newHostView(h).hostRow)
		}
		views = append(views, v)
	}
	c.render(w, r, http.StatusOK, "infraenvs", page{Title: "Infra-envs", Nav: "infra-envs", CSRF: ss.csrf, Data: views})
}

// bootURLs fills in v's image URL (an ISO, or else the API hands out the
// iPXE script's) and the iPXE script itself.
func (c *Console) bootURLs(ctx context.Context, v *infraEnvView) {
	var u models.PresignedURL
	if err := c.get(ctx, "/infra-envs/"+v.IE.ID+"/downloads/image-url", &u); err == nil {
		if strings.Contains(u.URL, "file_name=ipxe-script") {
			v.IPXEScriptURL = u.URL
		} else {
			v.ISOURL = u.URL
		}
	}
	if b, err := c.call(ctx, http.MethodGet, "/infra-envs/"+v.IE.ID+"/downloads/files?file_name=ipxe-script", nil); err == nil {
		v.IPXEScript = string(b)
	}
}

func (c *Console) hosts(w http.ResponseWriter, r *http.Request, ss session) {
	c.render(w, r, http.StatusOK, "hosts", page{Title: "Hosts", Nav: "hosts", CSRF: ss.csrf, Data: c.hostRows()})
}

// hostPage is the host page.
type hostPage struct {
	hostView
	Events []models.Event
}

func (c *Console) host(w http.ResponseWriter, r *http.Request, ss session) {
	c.showHost(w, r, ss, http.StatusOK, "")
}

// showHost renders the host page, with msg as an error when set.
func (c *Console) showHost(w http.ResponseWriter, r *http.Request, ss session, code int, msg string) {
	ctx := r.Context()
	ie, id := r.PathValue("ie"), r.PathValue("id")
	var h models.APIHost
	if err := c.get(ctx, "/infra-envs/"+url.PathEscape(ie)+"/hosts/"+url.PathEscape(id), &h); err != nil {
		c.fail(w, r, ss, err)
		return
	}
	p := hostPage{hostView: newHostView(h)}
	evs, err := c.events(ctx, url.Values{"host_id": {id}})
	if err != nil {
		c.fail(w, r, ss, err)
		return
	}
	p.Events = evs
	c.render(w, r, code, "host", page{Title: "Host " + p.Name, Nav: "hosts", CSRF: ss.csrf, Error: msg, Data: p})
}
