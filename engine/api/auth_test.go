package api

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/models"
)

// Agents are held to their infra-env; users need the admin token.
func TestAccess(t *testing.T) {
	e := newMemEnv(t)
	c := e.createCluster()
	ie1, ie2 := e.createInfraEnv(c.ID), e.createInfraEnv("")
	tok1, tok2 := e.agentConfig(ie1.ID).Token, e.agentConfig(ie2.ID).Token
	reg := models.HostCreateParams{HostID: testHostID, DiscoveryAgentVersion: "v1"}
	e.must(cred{agent: tok1}, 201, "POST", "/infra-envs/"+ie1.ID+"/hosts", reg)
	host1 := "/infra-envs/" + ie1.ID + "/hosts/" + testHostID

	cases := []struct {
		name   string
		c      cred
		method string
		path   string
		body   any
		code   int
	}{
		{"no token", cred{}, "GET", "/clusters", nil, 401},
		{"no token register", cred{}, "POST", "/infra-envs/" + ie1.ID + "/hosts", reg, 401},
		{"garbage token", cred{agent: "not-a-jwt"}, "GET", host1, nil, 401},
		{"wrong admin token", cred{bearer: "nope"}, "GET", "/clusters", nil, 401},
		{"other infra-env register", cred{agent: tok2}, "POST", "/infra-envs/" + ie1.ID + "/hosts", reg, 403},
		{"other infra-env host", cred{agent: tok2}, "GET", host1, nil, 403},
		{"other infra-env steps", cred{agent: tok2}, "GET", host1 + "/instructions", nil, 403},
		{"other infra-env reply", cred{agent: tok2}, "POST", host1 + "/instructions", models.StepReply{StepType: "inventory", Output: "{}"}, 403},
		{"other infra-env ignition", cred{agent: tok2}, "GET", "/infra-envs/" + ie1.ID + "/downloads/files?file_name=discovery.ign", nil, 403},
		{"host through other infra-env path", cred{agent: tok2}, "GET", "/infra-envs/" + ie2.ID + "/hosts/" + testHostID, nil, 404},
		{"agent on user API", cred{agent: tok1}, "GET", "/clusters", nil, 403},
		{"agent patches host", cred{agent: tok1}, "PATCH", host1, map[string]any{"approved": true}, 403},
		{"agent deletes host", cred{agent: tok1}, "DELETE", host1, nil, 403},
		{"agent image url", cred{agent: tok1}, "GET", "/infra-envs/" + ie1.ID + "/downloads/image-url", nil, 403},
		{"agent events", cred{agent: tok1}, "GET", "/events", nil, 403},
		{"own host", cred{agent: tok1}, "GET", host1, nil, 200},
		{"admin host", adminCred(), "GET", host1, nil, 200},
		{"register again", cred{agent: tok1}, "POST", "/infra-envs/" + ie1.ID + "/hosts", reg, 201},
		{"register in another infra-env", cred{agent: tok2}, "POST", "/infra-envs/" + ie2.ID + "/hosts", reg, 409},
		{"openapi without token", cred{bearer: ""}, "GET", "/openapi.json", nil, 200},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(tc.c, tc.method, tc.path, tc.body)
			if r.code != tc.code {
				t.Fatalf("%d %s, want %d", r.code, r.body, tc.code)
			}
			switch {
			case (tc.code == 401 || tc.code == 403) && routeOf(t, e, tc.method, tc.path).infraErr():
				e.wantInfraError(r, tc.code, "")
			case tc.code >= 400:
				e.wantError(r, tc.code, "")
			}
		})
	}
	// The admin token is never accepted from the URL or X-Secret-Key.
	e.wantError(e.do(cred{agent: testAdmin}, "GET", "/clusters", nil), 401, "")
	e.wantError(e.do(cred{}, "GET", "/clusters?api_key="+testAdmin, nil), 401, "")
}

// An image URL carries a short image token of its infra-env that expires
// and opens the downloads of that infra-env only.
func TestImageURL(t *testing.T) {
	e := newMemEnv(t)
	ie, other := e.createInfraEnv(""), e.createInfraEnv("")
	var u models.PresignedURL
	e.must(adminCred(), 200, "GET", "/infra-envs/"+ie.ID+"/downloads/image-url", nil).decode(t, &u)
	if time.Until(u.ExpiresAt.Time()) < 3*time.Hour || !strings.Contains(u.URL, "image_token=") ||
		!strings.HasPrefix(u.URL, e.srv.URL+BasePath+"/infra-envs/"+ie.ID+"/downloads/files?") {
		t.Fatalf("image url %+v", u)
	}
	r := e.must(cred{}, 200, "GET", u.URL, nil)
	if !strings.HasPrefix(string(r.body), "#!ipxe\n") || !strings.Contains(string(r.body), "chain --autofree http://10.55.0.1:8080/boot/${mac:hexhyp}/script.ipxe") {
		t.Errorf("ipxe script:\n%s", r.body)
	}
	tok := u.URL[strings.Index(u.URL, "image_token=")+len("image_token="):]
	e.must(cred{}, 200, "GET", "/infra-envs/"+ie.ID+"/downloads/files?file_name=discovery.ign&image_token="+tok, nil)
	e.wantInfraError(e.do(cred{}, "GET", "/infra-envs/"+other.ID+"/downloads/files?file_name=ipxe-script&image_token="+tok, nil), 401, "")
	e.wantInfraError(e.do(cred{}, "GET", "/infra-envs/"+ie.ID+"/hosts?image_token="+tok, nil), 401, "")
	e.wantInfraError(e.do(cred{}, "POST", "/infra-envs/"+ie.ID+"/hosts?image_token="+tok, models.HostCreateParams{HostID: testHostID}), 401, "")
	if strings.Contains(e.logs.String(), tok) {
		t.Errorf("the URL's token reached the log")
	}
	expired, err := e.keys.NewPathToken(ie.ID, time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	e.wantInfraError(e.do(cred{}, "GET", "/infra-envs/"+ie.ID+"/downloads/files?file_name=ipxe-script&image_token="+expired, nil), 401, "expired")
	jwt, err := e.keys.Sign(auth.Claims{InfraEnvID: ie.ID, ExpiresAt: time.Now().Add(-time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	e.wantInfraError(e.do(cred{}, "GET", "/infra-envs/"+ie.ID+"/downloads/files?file_name=ipxe-script&api_key="+jwt, nil), 401, "expired")
}

// Bad input gets a clear 4xx and changes nothing.
func TestBadInput(t *testing.T) {
	e := newMemEnv(t)
	c := e.createCluster()
	ie := e.createInfraEnv(c.ID)
	tok := e.agentConfig(ie.ID).Token
	e.must(cred{agent: tok}, 201, "POST", "/infra-envs/"+ie.ID+"/hosts", models.HostCreateParams{HostID: testHostID})
	host := "/infra-envs/" + ie.ID + "/hosts/" + testHostID
	big := `{"name":"` + strings.Repeat("x", 2<<20) + `"}`
	cases := []struct {
		name, method, path string
		c                  cred
		body               any
		code               int
		reason             string
	}{
		{"bad json", "POST", "/clusters", adminCred(), `{"name":`, 400, "invalid JSON body"},
		{"not an object", "POST", "/clusters", adminCred(), `[1,2]`, 400, "invalid JSON body"},
		{"trailing data", "POST", "/clusters", adminCred(), `{"name":"a"} {}`, 400, "data after"},
		{"empty body", "POST", "/infra-envs", adminCred(), ``, 400, "empty body"},
		{"wrong type", "POST", "/clusters", adminCred(), `{"name":5}`, 400, `field "name"`},
		{"no name", "POST", "/clusters", adminCred(), `{"openshift_version":"4.17","pull_secret":"{}"}`, 400, "name is required"},
		{"no pull secret", "POST", "/infra-envs", adminCred(), `{"name":"x"}`, 400, "pull_secret is required"},
		{"bad pull secret", "POST", "/infra-envs", adminCred(), `{"name":"x","pull_secret":"hunter2"}`, 400, "registry auth file"},
		{"bad cidr", "PATCH", "/clusters/" + c.ID, adminCred(), `{"machine_networks":[{"cidr":"10.0.0.0/99"}]}`, 400, "not a CIDR"},
		{"bad vip", "PATCH", "/clusters/" + c.ID, adminCred(), `{"api_vips":[{"ip":"10.0.0.300"}]}`, 400, "not an IP"},
		{"bad domain", "PATCH", "/clusters/" + c.ID, adminCred(), `{"base_dns_domain":"a..b"}`, 400, "not a DNS domain"},
		{"oversized", "POST", "/clusters", adminCred(), big, 413, "too large"},
		{"injecting hostname", "PATCH", host, adminCred(), `{"host_name":"a\nchain http://evil/"}`, 400, "host_name"},
		{"bad role", "PATCH", host, adminCred(), `{"host_role":"king"}`, 400, "host_role"},
		{"disk before inventory", "PATCH", host, adminCred(), `{"disks_selected_config":[{"id":"/dev/sda","role":"install"}]}`, 409, "not reported"},
		{"huge agent version", "POST", "/infra-envs/" + ie.ID + "/hosts", cred{agent: tok}, `{"host_id":"` + testHostID2 + `","discovery_agent_version":"` + strings.Repeat("v", 300) + `"}`, 400, "discovery_agent_version"},
		{"bad host id", "POST", "/infra-envs/" + ie.ID + "/hosts", cred{agent: tok}, `{"host_id":"../../etc"}`, 400, "not a UUID"},
		{"bad step type", "POST", host + "/instructions", cred{agent: tok}, `{"step_type":"rm-rf"}`, 400, "step_type"},
		{"bad inventory", "POST", host + "/instructions", cred{agent: tok}, `{"step_type":"inventory","output":"{not json"}`, 400, "inventory output"},
		{"unknown cluster", "GET", "/clusters/00000000-0000-4000-8000-000000000000", adminCred(), nil, 404, "not found"},
		{"unknown host steps", "GET", "/infra-envs/" + ie.ID + "/hosts/00000000-0000-4000-8000-000000000000/instructions", cred{agent: tok}, nil, 404, "not found"},
		{"unknown file", "GET", "/infra-envs/" + ie.ID + "/downloads/files?file_name=../../etc/passwd", adminCred(), nil, 400, "file_name"},
		{"bad ipxe mac", "GET", "/infra-envs/" + ie.ID + "/downloads/files?file_name=ipxe-script&mac=zz", adminCred(), nil, 400, "mac"},
		{"boot order needs mac", "GET", "/infra-envs/" + ie.ID + "/downloads/files?file_name=ipxe-script&ipxe_script_type=boot-order-control", adminCred(), nil, 400, "needs mac"},
		{"delete infra-env with hosts", "DELETE", "/infra-envs/" + ie.ID, adminCred(), nil, 409, "still has hosts"},
		{"delete cluster in use", "DELETE", "/clusters/" + c.ID, adminCred(), nil, 409, "used by infra-env"},
		{"unknown route", "GET", "/nothing", adminCred(), nil, 404, "no route"},
		{"wrong method", "PUT", "/clusters", adminCred(), nil, 405, "method not allowed"},
		{"bind bound infra-env's host", "POST", host + "/actions/unbind", adminCred(), nil, 409, "bound to cluster"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before []byte
			if s, ok := e.store.(interface{ Dump() []byte }); ok {
				before = s.Dump()
			}
			e.wantError(e.do(tc.c, tc.method, tc.path, tc.body), tc.code, tc.reason)
			if s, ok := e.store.(interface{ Dump() []byte }); ok && string(s.Dump()) != string(before) {
				t.Errorf("the model changed")
			}
		})
	}
	if r := e.do(adminCred(), "PUT", "/clusters", nil); r.hdr.Get("Allow") != "GET, POST" {
		t.Errorf("Allow %q", r.hdr.Get("Allow"))
	}
	_ = http.StatusOK
}

// An invalid Ignition override is refused with the parser's message.
func TestIgnitionOverride(t *testing.T) {
	e := newMemEnv(t)
	ie := e.createInfraEnv("")
	r := e.do(adminCred(), "PATCH", "/infra-envs/"+ie.ID, map[string]any{"ignition_config_override": `{"ignition":{"version":"9.9.9"}}`})
	e.wantError(r, 400, "ignition_config_override")
	if !strings.Contains(string(r.body), "version") {
		t.Errorf("reason does not give the parser's message: %s", r.body)
	}
	r = e.do(adminCred(), "POST", "/infra-envs", map[string]any{"name": "x", "pull_secret": testPullSecret,
		"ignition_config_override": `{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"relative"}]}}`})
	e.wantError(r, 400, "ignition_config_override")
	if strings.Contains(string(r.body), "c2VjcmV0") {
		t.Errorf("pull secret in the error: %s", r.body)
	}
	ok := `{"ignition":{"version":"3.2.0"},"storage":{"files":[{"path":"/etc/motd","contents":{"source":"data:,hello"}}]}}`
	var got models.InfraEnv
	e.must(adminCred(), 201, "PATCH", "/infra-envs/"+ie.ID, map[string]any{"ignition_config_override": ok}).decode(t, &got)
	if got.IgnitionConfigOverride != ok {
		t.Errorf("override not stored: %q", got.IgnitionConfigOverride)
	}
}
