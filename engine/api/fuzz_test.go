package api

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/clusters"
	"github.com/rackboot/rackboot/engine/infraenvs"
	"github.com/rackboot/rackboot/engine/models"
)

// FuzzDecodeBodies feeds arbitrary bytes to the decoding and checking of
// every create/update body: each either decodes and checks cleanly or
// fails with ErrBadRequest, never panics, and never echoes a pull secret.
func FuzzDecodeBodies(f *testing.F) {
	for _, seed := range []string{
		`{"name":"c","openshift_version":"4.17","pull_secret":"{\"auths\":{}}","base_dns_domain":"example.com"}`,
		`{"api_vips":[{"ip":"10.0.0.1"}],"machine_networks":[{"cidr":"10.0.0.0/24"}],"cluster_networks":[{"cidr":"10.128.0.0/14","host_prefix":23}]}`,
		`{"name":"ie","pull_secret":"{\"auths\":{}}","cluster_id":"11111111-1111-4111-8111-111111111111","proxy":{"http_proxy":"http://p:3128"}}`,
		`{"ignition_config_override":"{\"ignition\":{\"version\":\"3.2.0\"}}","additional_ntp_sources":"a,b"}`,
		`{"host_role":"master","host_name":"node-1","approved":true,"disks_selected_config":[{"id":"/dev/sda","role":"install"}]}`,
		`{"host_id":"52540000-aabb-0001-0000-000000000001","discovery_agent_version":"v"}`,
		`{"step_type":"inventory","step_id":"inventory-00000000","output":"{}","exit_code":0}`,
		`{"cluster_id":null}`, `[]`, `{"name":`, `{} {}`, "\x00", `{"control_plane_count":-1}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		targets := []func() error{
			func() error {
				var p models.ClusterCreateParams
				if err := decodeBytes(data, &p); err != nil {
					return err
				}
				_, _, err := clusters.FromParams(p)
				return err
			},
			func() error {
				var p models.V2ClusterUpdateParams
				if err := decodeBytes(data, &p); err != nil {
					return err
				}
				_, err := clusters.Patch(p)
				return err
			},
			func() error {
				var p models.InfraEnvUpdateParams
				if err := decodeBytes(data, &p); err != nil {
					return err
				}
				_, err := infraenvs.Patch(&engine.InfraEnv{}, new(string), p)
				return err
			},
			func() error {
				var p models.HostUpdateParams
				return decodeBytes(data, &p)
			},
			func() error {
				var p models.HostCreateParams
				if err := decodeBytes(data, &p); err != nil {
					return err
				}
				return clusters.CheckUUID("host_id", p.HostID)
			},
			func() error {
				var p models.StepReply
				return decodeBytes(data, &p)
			},
			func() error {
				var p models.BindHostParams
				return decodeBytes(data, &p)
			},
		}
		for i, target := range targets {
			err := target()
			if err == nil {
				continue
			}
			if statusOf(err) != 400 {
				t.Fatalf("target %d: %v has status %d, want 400", i, err, statusOf(err))
			}
			if len(data) > 16 && strings.Contains(err.Error(), string(data)) {
				t.Fatalf("target %d: error echoes the whole body: %v", i, err)
			}
		}
	})
}

// FuzzAgentHandlers sends arbitrary bodies to the agent-facing handlers
// (register, step reply) through the real handler: the answer is always a
// 2xx or a 4xx, never a 5xx.
func FuzzAgentHandlers(f *testing.F) {
	f.Add([]byte(`{"host_id":"52540000-aabb-0001-0000-000000000001","discovery_agent_version":"v"}`), true)
	f.Add([]byte(`{"step_type":"inventory","output":"{\"cpu\":{\"count\":2},\"disks\":[{\"id\":\"d\",\"size_bytes\":1}]}"}`), false)
	f.Add([]byte(`{"step_type":"inventory","output":"[]"}`), false)
	f.Add([]byte(`{"step_type":"domain-resolution","exit_code":1,"error":"x"}`), false)
	f.Add([]byte(`{"step_type":"ntp-synchronizer","output":"{\"ntp_sources\":[{\"source_name\":\"10.0.0.1\",\"source_state\":\"synced\"}]}"}`), false)
	f.Add([]byte(`{"step_type":"domain-resolution","output":"{\"resolutions\":[{\"domain_name\":\"api.c.example.com\",\"ipv4_addresses\":[\"10.0.0.5\"]}]}"}`), false)
	f.Add([]byte(`{"step_type":"connectivity-check","output":"{\"remote_hosts\":[{\"host_id\":\"x\",\"l2_connectivity\":[{\"successful\":true}]}]}"}`), false)
	f.Add([]byte(`{"step_type":"connectivity-check","output":"{\"remote_hosts\":null}"}`), false)
	e := newMemEnv(f)
	ie := e.createInfraEnv("")
	tok := e.agentConfig(ie.ID).Token
	e.must(cred{agent: tok}, 201, "POST", "/infra-envs/"+ie.ID+"/hosts", models.HostCreateParams{HostID: testHostID})
	h, err := New(Options{Store: e.store, AdminToken: testAdmin, Keys: e.keys, ServiceURL: "http://10.0.0.1:8090"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, register bool) {
		path := BasePath + "/infra-envs/" + ie.ID + "/hosts/" + testHostID + "/instructions"
		if register {
			path = BasePath + "/infra-envs/" + ie.ID + "/hosts"
		}
		req := httptest.NewRequest("POST", path, bytes.NewReader(body))
		req.Header.Set("X-Secret-Key", tok)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 || rec.Code < 200 {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	})
}
