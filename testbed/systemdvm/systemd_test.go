package systemdvm

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// guest runs scripts in the VM for one (sub)test.
type guest struct {
	t   *testing.T
	ctx context.Context
	vm  *VM
}

// run runs script and returns its output; a broken channel fails the test.
func (g guest) run(script string) Result {
	g.t.Helper()
	res, err := g.vm.Run(g.ctx, script)
	if err != nil {
		g.t.Fatalf("%v\nconsole:\n%s", err, g.vm.ConsoleTail(30))
	}
	return res
}

// must runs script and fails the test, with the script's output, when it
// exits non-zero; what says what the user was doing.
func (g guest) must(what, script string) string {
	g.t.Helper()
	res := g.run(script)
	if res.Status != 0 {
		g.t.Fatalf("%s: exit status %d:\n%s", what, res.Status, res.Output)
	}
	return res.Output
}

// vars runs script and reads the "key=value" lines it prints.
func (g guest) vars(script string) map[string]string {
	g.t.Helper()
	res := g.run(script)
	v := map[string]string{}
	for _, line := range strings.Split(res.Output, "\n") {
		if k, val, ok := strings.Cut(line, "="); ok && !strings.ContainsAny(k, " \t") {
			v[k] = val
		}
	}
	v["_output"] = res.Output
	return v
}

// unit is what systemctl show says of rackbootd.
const unit = `systemctl show -p ActiveState -p SubState -p MainPID -p NRestarts -p StatusText -p Result rackbootd
`

// lease is a shell function: lease IFACE prints the address udhcpc got on
// IFACE in the client namespace (nothing when it got none).
const lease = `lease() { ip netns exec client busybox udhcpc -i "$1" -n -q -f -t 5 -T 2 -s /usr/local/sbin/udhcpc-script 2>/dev/null | sed -n 's/^LEASE //p'; }
`

// TestPackageUnderSystemd installs rackboot's package into Debian with
// systemd as PID 1 and goes through what an operator does with it, in
// order: install, enable --now, reload under load, the journal, a hung
// daemon, an upgrade, a rack's service address, remove, purge.
func TestPackageUnderSystemd(t *testing.T) {
	requireVM(t)
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Minute)
	defer cancel()
	files := t.TempDir()
	d := writeFiles(t, files)
	t.Logf("packages: %s, upgrade %s", d.v1, d.v2)
	vm := bootVM(t, ctx, files)
	guest{t, ctx, vm}.must("mounting the files disk", "mkdir -p /mnt/tb && mount -o ro /dev/vdb /mnt/tb && sh /mnt/tb/setup-network.sh")

	steps := []struct {
		name string
		run  func(guest, debs)
	}{
		{"Install", install},
		{"EnableNow", enableNow},
		{"ReloadKeepsLeasesAndTransfers", reloadKeeps},
		{"JournalFields", journalFields},
		{"WatchdogRestartsHungDaemon", watchdog},
		{"UpgradeKeepsState", upgrade},
		{"RackDropIn", rack},
		{"RemoveKeepsState", remove},
		{"PurgeRemovesState", purge},
	}
	for _, s := range steps {
		start := time.Now()
		ok := t.Run(s.name, func(t *testing.T) { s.run(guest{t, ctx, vm}, d) })
		t.Logf("%s: %s", s.name, time.Since(start).Round(time.Second))
		if !ok {
			t.Fatalf("%s failed; the later steps build on it", s.name)
		}
	}
}

func install(g guest, d debs) {
	out := g.must("apt install ./"+d.v1, "cd /mnt/tb && DEBIAN_FRONTEND=noninteractive apt-get -y install ./"+d.v1)
	if !strings.Contains(out, "systemctl enable --now rackbootd") {
		g.t.Errorf("apt install does not tell the operator what to do next:\n%s", out)
	}
	v := g.vars(`echo status=$(dpkg-query -W -f='${Status} ${Version}' rackboot)
echo enabled=$(systemctl is-enabled rackbootd)
echo active=$(systemctl is-active rackbootd)
echo user=$(id -un rackboot)
echo state=$(stat -c '%U %a' /var/lib/rackboot)
`)
	want := map[string]string{
		"status":  "install ok installed " + d.version1,
		"enabled": "disabled", // a DHCP server must not start before its configuration is edited
		"active":  "inactive",
		"user":    "rackboot",
		"state":   "rackboot 750",
	}
	for k, w := range want {
		if v[k] != w {
			g.t.Errorf("after apt install, %s is %q, want %q", k, v[k], w)
		}
	}
}

func enableNow(g guest, _ debs) {
	g.must("the operator's configuration", "cp /mnt/tb/rackboot.toml /etc/rackboot/rackboot.toml && rackbootd check-config /etc/rackboot/rackboot.toml")
	res := g.run("systemctl enable --now rackbootd")
	v := g.vars(unit + "journalctl -u rackbootd -o cat --no-pager | tail -20")
	if res.Status != 0 {
		g.t.Fatalf("systemctl enable --now rackbootd failed (%d): %s\n%s", res.Status, res.Output, v["_output"])
	}
	// Type=notify: the unit becomes active only on READY=1, and
	// StatusText is the daemon's STATUS= line.
	if v["ActiveState"] != "active" || v["SubState"] != "running" || !strings.HasPrefix(v["StatusText"], "serving: ") {
		g.t.Fatalf("after systemctl enable --now rackbootd the unit is not active with the daemon's status:\n%s", v["_output"])
	}
	if !strings.Contains(v["_output"], "rackbootd started") {
		g.t.Errorf("the journal does not show rackbootd starting:\n%s", v["_output"])
	}
}

func reloadKeeps(g guest, _ debs) {
	v := g.vars(lease + `ip0=$(lease c0); echo ip0=$ip0
ip -n client addr add $ip0/24 dev c0
echo pid_before=$(systemctl show -P MainPID rackbootd)
rm -f /tmp/kernel
ip netns exec client curl -sS --limit-rate 256k -o /tmp/kernel http://10.99.0.1:8080/boot/` + mac0 + `/kernel 2>/tmp/curl.err &
curl=$!
i=0; while [ ! -s /tmp/kernel ] && [ $i -lt 100 ]; do i=$((i+1)); sleep 0.2; done
echo bytes_before_reload=$(stat -c %s /tmp/kernel 2>/dev/null)
systemctl reload rackbootd; echo reload_status=$?
if kill -0 $curl 2>/dev/null; then echo in_flight_after_reload=yes; else echo in_flight_after_reload=no; fi
wait $curl; echo curl_status=$?; cat /tmp/curl.err
if cmp -s /tmp/kernel /srv/rackboot/vmlinuz; then echo transfer=complete; else echo transfer=differs; fi
ip1=$(lease c1); echo ip1=$ip1
ip0_again=$(lease c0); echo ip0_again=$ip0_again
echo pid_after=$(systemctl show -P MainPID rackbootd)
echo active=$(systemctl is-active rackbootd)
echo reloaded=$(journalctl -u rackbootd -o cat --no-pager | grep -c 'dhcp configuration reloaded')
`)
	out := v["_output"]
	switch {
	case v["ip0"] == "":
		g.t.Fatalf("a DHCP client got no lease from rackbootd under systemd:\n%s", out)
	case v["bytes_before_reload"] == "" || v["bytes_before_reload"] == "0":
		g.t.Fatalf("the HTTP download of the profile's kernel never started:\n%s", out)
	case v["in_flight_after_reload"] != "yes":
		g.t.Fatalf("the download ended before systemctl reload returned, so this run shows nothing about transfers across a reload:\n%s", out)
	}
	if v["reload_status"] != "0" || v["reloaded"] == "0" {
		g.t.Errorf("systemctl reload rackbootd failed or the daemon did not reload:\n%s", out)
	}
	if v["pid_after"] != v["pid_before"] || v["active"] != "active" {
		g.t.Errorf("systemctl reload restarted the daemon (MainPID %s -> %s, %s):\n%s", v["pid_before"], v["pid_after"], v["active"], out)
	}
	if v["curl_status"] != "0" || v["transfer"] != "complete" {
		g.t.Errorf("a download in flight across systemctl reload broke (curl exit %s, file %s):\n%s", v["curl_status"], v["transfer"], out)
	}
	if v["ip1"] == "" || v["ip1"] == v["ip0"] {
		g.t.Errorf("after the reload a second client got %q, the first client's lease %q: the reload lost the lease:\n%s", v["ip1"], v["ip0"], out)
	}
	if v["ip0_again"] != v["ip0"] {
		g.t.Errorf("after the reload the first client got %q instead of its lease %q:\n%s", v["ip0_again"], v["ip0"], out)
	}
}

// journalFields reads journalctl -u rackbootd -o json: the daemon's slog
// attributes are journal fields of their own.
func journalFields(g guest, _ debs) {
	out := g.must("journalctl -u rackbootd -o json", "journalctl -u rackbootd -o json --no-pager")
	var started, replied bool
	var seen []string // the daemon's entries, without the journal's own fields
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e map[string]any
		if json.Unmarshal(sc.Bytes(), &e) != nil || e["_COMM"] != "rackbootd" {
			continue
		}
		seen = append(seen, ownFields(e))
		msg, _ := e["MESSAGE"].(string)
		switch {
		case strings.HasPrefix(msg, "rackbootd started") && e["DHCP"] == "full" && e["HTTP"] == ":8080" && e["PRIORITY"] == "6":
			started = true
		case strings.HasPrefix(msg, "replied") && e["MAC"] == mac0 && e["TYPE"] == "ACK" && e["XID"] != nil:
			replied = true
		}
	}
	if len(seen) > 8 {
		seen = seen[:8]
	}
	if !started {
		g.t.Errorf("journalctl -u rackbootd -o json has no \"rackbootd started\" entry with the fields DHCP=full, HTTP=:8080, PRIORITY=6; its first entries:\n%s", strings.Join(seen, "\n"))
	}
	if !replied {
		g.t.Errorf("journalctl -u rackbootd -o json has no \"replied\" entry with the fields MAC=%s TYPE=ACK XID=...", mac0)
	}
	// The plain journal still reads as the text format did.
	text := g.must("journalctl -u rackbootd", "journalctl -u rackbootd -o cat --no-pager | grep '^replied' | tail -1")
	if !strings.Contains(text, "mac="+mac0) {
		g.t.Errorf("journalctl -u rackbootd shows DHCP replies without their attributes: %q", text)
	}
}

// ownFields is an entry's fields other than the journal's own (those
// starting with "_"), sorted, as "KEY=value ...".
func ownFields(e map[string]any) string {
	var f []string
	for k, v := range e {
		if !strings.HasPrefix(k, "_") && k != "SYSLOG_FACILITY" && k != "SYSLOG_IDENTIFIER" {
			f = append(f, fmt.Sprintf("%s=%v", k, v))
		}
	}
	slices.Sort(f)
	return strings.Join(f, " ")
}

// watchdog stops the daemon (SIGSTOP): it sends no WATCHDOG=1, and systemd
// restarts it after WatchdogSec.
func watchdog(g guest, _ debs) {
	v := g.vars(`pid=$(systemctl show -P MainPID rackbootd); echo pid_before=$pid
echo restarts_before=$(systemctl show -P NRestarts rackbootd)
kill -STOP $pid
i=0
while [ $i -lt 300 ]; do
	if [ "$(systemctl show -P MainPID rackbootd)" != "$pid" ] && [ "$(systemctl is-active rackbootd)" = active ]; then break; fi
	i=$((i+1)); sleep 1
done
echo waited=$i
echo pid_after=$(systemctl show -P MainPID rackbootd)
echo restarts_after=$(systemctl show -P NRestarts rackbootd)
echo active=$(systemctl is-active rackbootd)
journalctl -u rackbootd --no-pager | grep -i watchdog
`)
	out := v["_output"]
	if v["pid_after"] == v["pid_before"] || v["active"] != "active" {
		g.t.Fatalf("a hung rackbootd (SIGSTOP) was not restarted by systemd's watchdog within 300 s:\n%s", out)
	}
	before, after := 0, 0
	fmt.Sscan(v["restarts_before"], &before)
	fmt.Sscan(v["restarts_after"], &after)
	if after != before+1 {
		g.t.Errorf("NRestarts went from %d to %d, want one restart:\n%s", before, after, out)
	}
	if !strings.Contains(out, "Watchdog timeout") {
		g.t.Errorf("the journal does not say the watchdog fired:\n%s", out)
	}
	g.t.Logf("watchdog restart after %s s", v["waited"])
}

func upgrade(g guest, d debs) {
	v := g.vars(lease + `echo token_before=$(sha256sum </var/lib/rackboot/admin-token)
echo pid_before=$(systemctl show -P MainPID rackbootd)
cd /mnt/tb && DEBIAN_FRONTEND=noninteractive apt-get -y install ./` + d.v2 + ` >/tmp/apt.log 2>&1; echo apt_status=$?
echo version=$(dpkg-query -W -f='${Version}' rackboot)
echo binary=$(rackbootd version)
echo pid_after=$(systemctl show -P MainPID rackbootd)
echo active=$(systemctl is-active rackbootd)
echo enabled=$(systemctl is-enabled rackbootd)
echo token_after=$(sha256sum </var/lib/rackboot/admin-token)
echo ip1=$(lease c1)
echo ip0=$(lease c0)
tail -5 /tmp/apt.log
`)
	out := v["_output"]
	if v["apt_status"] != "0" || v["version"] != d.version2 {
		g.t.Fatalf("apt install ./%s: status %s, installed version %q:\n%s", d.v2, v["apt_status"], v["version"], out)
	}
	if v["binary"] != "rackbootd "+d.binary2 || v["pid_after"] == v["pid_before"] || v["active"] != "active" || v["enabled"] != "enabled" {
		g.t.Errorf("after the upgrade the new rackbootd is not the one running (want a restarted, active, enabled unit running %q):\n%s", d.binary2, out)
	}
	if v["token_after"] == "" || v["token_after"] != v["token_before"] {
		g.t.Errorf("the upgrade changed /var/lib/rackboot/admin-token: the operator's rackbootctl token stopped working:\n%s", out)
	}
	// The second client asks first: a daemon that lost its leases would
	// give it the range's first address, the first client's.
	if v["ip1"] != "10.99.0.101" || v["ip0"] != "10.99.0.100" {
		g.t.Errorf("after the upgrade the clients got %s and %s, not their leases 10.99.0.100 and 10.99.0.101:\n%s", v["ip0"], v["ip1"], out)
	}
}

// rack turns the VM into a one-appliance rack with a service address: the
// shipped unit alone refuses it, with the rack drop-in it runs.
func rack(g guest, _ debs) {
	g.must("preparing the rack", `set -e
rackbootctl cluster init --dir /root/rack --node-id rb1 >/dev/null
mkdir -p /etc/rackboot/cluster
cp /root/rack/rb1/* /etc/rackboot/cluster/
chown -R rackboot:rackboot /etc/rackboot/cluster
cp /mnt/tb/rackboot-rack.toml /etc/rackboot/rackboot.toml
ip addr del 10.99.0.1/24 dev br0
ip addr add 10.99.0.2/24 dev br0
rackbootd check-config /etc/rackboot/rackboot.toml
`)
	v := g.vars(`systemctl restart rackbootd; echo restart_status=$?
` + unit + `systemctl stop rackbootd
journalctl -u rackbootd -o cat --no-pager -n 10`)
	if v["restart_status"] == "0" && v["ActiveState"] == "active" {
		g.t.Fatalf("the shipped unit alone ran a rack with a service address; this step expects it to refuse:\n%s", v["_output"])
	}
	g.t.Logf("without the drop-in:\n%s", v["_output"])
	if !strings.Contains(v["_output"], "service address") {
		g.t.Errorf("without the rack drop-in neither the unit's status nor its journal says the service address is the problem:\n%s", v["_output"])
	}
	v = g.vars(`mkdir -p /etc/systemd/system/rackbootd.service.d
ln -s /usr/share/rackboot/systemd/rack.conf /etc/systemd/system/rackbootd.service.d/rack.conf
systemctl daemon-reload
systemctl restart rackbootd; echo restart_status=$?
` + unit + `
i=0; until ip -4 addr show dev lo | grep -q 10.99.0.1/32 || [ $i -ge 60 ]; do i=$((i+1)); sleep 1; done
echo vip=$(ip -4 -o addr show dev lo | grep -o '10.99.0.1/32')
echo arp_ignore=$(cat /proc/sys/net/ipv4/conf/br0/arp_ignore)
echo arp_announce=$(cat /proc/sys/net/ipv4/conf/br0/arp_announce)
echo security=$(systemd-analyze security rackbootd 2>/dev/null | tail -1)
journalctl -u rackbootd -o cat --no-pager -n 30 | grep -i -e vip -e 'service address'
`)
	out := v["_output"]
	if v["restart_status"] != "0" || v["ActiveState"] != "active" {
		g.t.Fatalf("with the rack drop-in, rackbootd does not start as a rack member:\n%s", out)
	}
	if v["vip"] != "10.99.0.1/32" || v["arp_ignore"] != "1" || v["arp_announce"] != "2" {
		g.t.Errorf("with the rack drop-in the leader does not hold the service address (lo: %q, arp_ignore %q, arp_announce %q):\n%s", v["vip"], v["arp_ignore"], v["arp_announce"], out)
	}
	if ip := g.vars(lease + "echo ip=$(lease c1)")["ip"]; ip != "10.99.0.100" {
		g.t.Errorf("the rack leader gave a DHCP client %q, want 10.99.0.100 (a fresh rack state)", ip)
	}
	g.t.Logf("systemd-analyze security rackbootd with the drop-in: %s", v["security"])
}

func remove(g guest, _ debs) {
	v := g.vars(`DEBIAN_FRONTEND=noninteractive apt-get -y remove rackboot >/tmp/apt.log 2>&1; echo apt_status=$?
echo status=$(dpkg-query -W -f='${Status}' rackboot)
echo active=$(systemctl is-active rackbootd)
echo binary=$(ls /usr/bin/rackbootd 2>&1)
echo state=$(ls /var/lib/rackboot | tr '\n' ' ')
echo config=$(ls /etc/rackboot/rackboot.toml)
tail -5 /tmp/apt.log
`)
	out := v["_output"]
	if v["apt_status"] != "0" || v["status"] != "deinstall ok config-files" {
		g.t.Fatalf("apt remove rackboot: %s:\n%s", v["status"], out)
	}
	if v["active"] == "active" || strings.HasPrefix(v["binary"], "/usr/bin/rackbootd") {
		g.t.Errorf("after apt remove rackbootd still runs or is still installed:\n%s", out)
	}
	if !strings.Contains(v["state"], "admin-token") || !strings.Contains(v["state"], "rack") {
		g.t.Errorf("apt remove deleted the state in /var/lib/rackboot (left: %q):\n%s", v["state"], out)
	}
	if v["config"] != "/etc/rackboot/rackboot.toml" {
		g.t.Errorf("apt remove deleted the configuration:\n%s", out)
	}
}

func purge(g guest, _ debs) {
	v := g.vars(`DEBIAN_FRONTEND=noninteractive apt-get -y purge rackboot >/tmp/apt.log 2>&1; echo apt_status=$?
echo status=$(dpkg-query -W -f='${Status}' rackboot 2>&1)
for p in /var/lib/rackboot /etc/rackboot/rackboot.toml /etc/systemd/system/rackbootd.service.d/rack.conf /etc/systemd/system/multi-user.target.wants/rackbootd.service; do
	if [ -e "$p" ] || [ -L "$p" ]; then echo left=$p; fi
done
tail -5 /tmp/apt.log
`)
	out := v["_output"]
	if v["apt_status"] != "0" {
		g.t.Fatalf("apt purge rackboot failed:\n%s", out)
	}
	if strings.Contains(out, "left=") {
		g.t.Errorf("apt purge rackboot left files behind:\n%s", out)
	}
}
