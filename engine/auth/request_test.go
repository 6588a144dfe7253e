package auth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

func TestParseBearer(t *testing.T) {
	cases := []struct {
		in, tok string
		err     error
	}{
		{"Bearer abc.DEF-_~+/=", "abc.DEF-_~+/=", nil},
		{"bearer   abc", "abc", nil},
		{"BEARER abc==", "abc==", nil},
		{"", "", ErrNoCredentials},
		{"   ", "", ErrNoCredentials},
		{"Basic dXNlcjpwYXNz", "", ErrInvalidToken},
		{"Bearer", "", ErrInvalidToken},
		{"Bearer ", "", ErrInvalidToken},
		{"Bearer a b", "", ErrInvalidToken},
		{"Bearer a=b", "", ErrInvalidToken},
		{"Bearer ===", "", ErrInvalidToken},
		{"Bearer a\nb", "", ErrInvalidToken},
		{"Bearerabc", "", ErrInvalidToken},
	}
	for _, c := range cases {
		tok, err := ParseBearer(c.in)
		if tok != c.tok || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("ParseBearer(%q) = %q, %v; want %q, %v", c.in, tok, err, c.tok, c.err)
		}
	}
}

func TestCredentialFromRequest(t *testing.T) {
	cases := []struct {
		name    string
		headers map[string][]string
		query   string
		want    Credential
		err     error
	}{
		{"bearer", map[string][]string{"Authorization": {"Bearer t1"}}, "", Credential{"t1", SourceBearer}, nil},
		{"agent header", map[string][]string{"X-Secret-Key": {"t1"}}, "", Credential{"t1", SourceAgentKey}, nil},
		{"image header", map[string][]string{"Image-Token": {"t1"}}, "", Credential{"t1", SourceImageToken}, nil},
		{"api_key", nil, "api_key=t1", Credential{"t1", SourceAPIKey}, nil},
		{"image_token", nil, "image_token=t1", Credential{"t1", SourceImageQuery}, nil},
		{"empty agent header ignored", map[string][]string{"X-Secret-Key": {""}}, "api_key=t1", Credential{"t1", SourceAPIKey}, nil},
		{"same token twice", map[string][]string{"X-Secret-Key": {"t1"}}, "api_key=t1", Credential{"t1", SourceAgentKey}, nil},
		{"none", nil, "", Credential{}, ErrNoCredentials},
		{"only empty values", map[string][]string{"X-Secret-Key": {""}, "Authorization": {""}}, "api_key=", Credential{}, ErrNoCredentials},
		{"different tokens", map[string][]string{"Authorization": {"Bearer t1"}}, "api_key=t2", Credential{}, ErrAmbiguousCredentials},
		{"two api_keys", nil, "api_key=t1&api_key=t2", Credential{}, ErrAmbiguousCredentials},
		{"two authorization headers", map[string][]string{"Authorization": {"Bearer t1", "Bearer t1"}}, "", Credential{}, ErrAmbiguousCredentials},
		{"basic auth", map[string][]string{"Authorization": {"Basic dXNlcjpwYXNz"}}, "", Credential{}, ErrInvalidToken},
		{"bad chars in header", map[string][]string{"X-Secret-Key": {"a b"}}, "", Credential{}, ErrInvalidToken},
		{"bad chars in query", nil, "api_key=" + url.QueryEscape("a<b"), Credential{}, ErrInvalidToken},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/x?"+c.query, nil)
			for k, vs := range c.headers {
				for _, v := range vs {
					r.Header.Add(k, v)
				}
			}
			got, err := CredentialFromRequest(r)
			if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
				t.Fatalf("got %+v, %v; want %+v, %v", got, err, c.want, c.err)
			}
		})
	}
}

func TestAuthenticate(t *testing.T) {
	k, _ := newRing(t)
	const admin = "QWRtaW5Ub2tlbkZvclRlc3RzT25seTAxMjM0NTY3ODk"
	agent := sign(t, k, Claims{InfraEnvID: "ie-1"})
	clusterAgent := sign(t, k, Claims{ClusterID: "c-1"})
	cases := []struct {
		name   string
		header string
		value  string
		query  string
		want   Principal
		status int
	}{
		{"admin bearer", "Authorization", "Bearer " + admin, "", Principal{Kind: KindAdmin}, 200},
		{"admin in a URL is refused", "", "", "api_key=" + admin, Principal{}, 401},
		{"admin in agent header is refused", "X-Secret-Key", admin, "", Principal{}, 401},
		{"agent header", "X-Secret-Key", agent, "", Principal{Kind: KindAgent, InfraEnvID: "ie-1"}, 200},
		{"agent api_key", "", "", "api_key=" + agent, Principal{Kind: KindAgent, InfraEnvID: "ie-1"}, 200},
		{"agent bearer", "Authorization", "Bearer " + agent, "", Principal{Kind: KindAgent, InfraEnvID: "ie-1"}, 200},
		{"agent image token", "Image-Token", agent, "", Principal{Kind: KindAgent, InfraEnvID: "ie-1"}, 200},
		{"cluster token", "X-Secret-Key", clusterAgent, "", Principal{Kind: KindAgent, ClusterID: "c-1"}, 200},
		{"wrong token", "Authorization", "Bearer " + admin + "x", "", Principal{}, 401},
		{"nothing", "", "", "", Principal{}, 401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/x?"+c.query, nil)
			if c.header != "" {
				r.Header.Set(c.header, c.value)
			}
			p, err := Authenticate(r, admin, k)
			if p != c.want || HTTPStatus(err) != c.status {
				t.Fatalf("got %+v, %v (status %d); want %+v, %d", p, err, HTTPStatus(err), c.want, c.status)
			}
			noLeak(t, err, admin)
			noLeak(t, err, agent)
		})
	}
	r := httptest.NewRequest(http.MethodGet, "/x", nil)
	r.Header.Set("X-Secret-Key", agent)
	if _, err := Authenticate(r, admin, nil); HTTPStatus(err) != 401 {
		t.Errorf("agent token without a key ring: %v", err)
	}
	r.Header.Set("Authorization", "Bearer "+admin)
	r.Header.Del("X-Secret-Key")
	if _, err := Authenticate(r, "", k); HTTPStatus(err) != 401 {
		t.Errorf("admin disabled: %v", err)
	}
}

func TestPrincipalScope(t *testing.T) {
	admin := Principal{Kind: KindAdmin}
	agent := Principal{Kind: KindAgent, InfraEnvID: "ie-1"}
	cl := Principal{Kind: KindAgent, ClusterID: "c-1"}
	checks := []struct {
		name string
		err  error
		ok   bool
	}{
		{"admin any infra-env", admin.AllowInfraEnv("ie-9"), true},
		{"admin any cluster", admin.AllowCluster("c-9"), true},
		{"agent own infra-env", agent.AllowInfraEnv("ie-1"), true},
		{"agent other infra-env", agent.AllowInfraEnv("ie-2"), false},
		{"agent empty infra-env", agent.AllowInfraEnv(""), false},
		{"infra-env agent and a cluster", agent.AllowCluster("c-1"), false},
		{"cluster agent own cluster", cl.AllowCluster("c-1"), true},
		{"cluster agent empty infra-env", cl.AllowInfraEnv(""), false},
		{"nobody", Principal{}.AllowInfraEnv("ie-1"), false},
	}
	for _, c := range checks {
		if (c.err == nil) != c.ok || (c.err != nil && HTTPStatus(c.err) != http.StatusForbidden) {
			t.Errorf("%s: %v", c.name, c.err)
		}
	}
}
