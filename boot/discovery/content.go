package discovery

import (
	"encoding/json"
	"fmt"
	"strings"
)

// agentUnit is rackboot-agent.service.
const agentUnit = `[Unit]
Description=rackboot discovery agent
Wants=network-online.target
After=network-online.target
ConditionPathExists=` + AgentConfigPath + `

[Service]
Type=simple
ExecStart=` + AgentBinary + ` --config ` + AgentConfigPath + `
Restart=always
RestartSec=10

[Install]
WantedBy=multi-user.target
`

// agentConfig renders AgentConfigPath.
func agentConfig(in Input) ([]byte, error) {
	raw, err := json.MarshalIndent(AgentConfig{
		ServiceURL: strings.TrimSuffix(in.ServiceURL, "/"),
		InfraEnvID: in.InfraEnvID,
		Token:      in.AgentToken,
	}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding agent config: %w", err)
	}
	return append(raw, '\n'), nil
}

// proxyVars lists the environment of p, upper and lower case, in a fixed order.
func proxyVars(p Proxy) [][2]string {
	var out [][2]string
	for _, v := range []struct{ name, val string }{
		{"HTTP_PROXY", p.HTTPProxy}, {"HTTPS_PROXY", p.HTTPSProxy}, {"NO_PROXY", p.NoProxy},
	} {
		if v.val != "" {
			out = append(out, [2]string{v.name, v.val}, [2]string{strings.ToLower(v.name), v.val})
		}
	}
	return out
}

// proxyProfile renders /etc/profile.d/proxy.sh: one export per variable,
// single-quoted (values are URL characters only, so "'" is the one to escape).
func proxyProfile(p Proxy) []byte {
	var b strings.Builder
	b.WriteString("# Written by rackboot: the infra-env's proxy.\n")
	for _, kv := range proxyVars(p) {
		fmt.Fprintf(&b, "export %s='%s'\n", kv[0], strings.ReplaceAll(kv[1], "'", `'\''`))
	}
	return []byte(b.String())
}

// proxyDropIn renders the agent unit's drop-in. Values are URL characters
// only (no quote, backslash or space); "%" is doubled for systemd.
func proxyDropIn(p Proxy) []byte {
	var b strings.Builder
	b.WriteString("# Written by rackboot: the infra-env's proxy.\n[Service]\n")
	for _, kv := range proxyVars(p) {
		fmt.Fprintf(&b, "Environment=\"%s=%s\"\n", kv[0], strings.ReplaceAll(kv[1], "%", "%%"))
	}
	return []byte(b.String())
}

// chronyConf renders /etc/chrony.d/rackboot.conf.
func chronyConf(sources []string) []byte {
	var b strings.Builder
	b.WriteString("# Written by rackboot: the infra-env's NTP sources.\n")
	for _, s := range sources {
		fmt.Fprintf(&b, "server %s iburst\n", s)
	}
	return []byte(b.String())
}
