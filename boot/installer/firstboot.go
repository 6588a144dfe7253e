package installer

import "strings"

// Paths and names of the first-boot report on the installed system.
const (
	FirstBootUnit      = "rackboot-firstboot.service"
	FirstBootScript    = "/usr/local/bin/rackboot-firstboot"
	FirstBootTokenPath = "/etc/rackboot/firstboot.token"
	// FirstBootStamp is created once the report succeeded; the unit and the
	// script then do nothing on later boots.
	FirstBootStamp = "/var/lib/rackboot/firstboot.done"
	HostnamePath   = "/etc/hostname"
	// FirstBootDoneMarker is printed to /dev/console when Done was reported.
	FirstBootDoneMarker = "RACKBOOT-FIRSTBOOT-DONE"
	// FirstBootFailedMarker is printed to /dev/console when it was not.
	FirstBootFailedMarker = "RACKBOOT-FIRSTBOOT-FAILED"
)

// firstBootUnit is rackboot-firstboot.service.
const firstBootUnit = `[Unit]
Description=Report this host's installation to rackboot
Wants=network-online.target
After=network-online.target
ConditionPathExists=!` + FirstBootStamp + `

[Service]
Type=oneshot
ExecStart=` + FirstBootScript + `
RemainAfterExit=yes

[Install]
WantedBy=multi-user.target
`

// firstBootScriptTemplate is the script; @URL@ is replaced by the progress
// URL, single-quoted (checkProgressURL refuses "'"). The token travels on
// curl's standard input (-H @-), never on a command line. The RACKBOOT_*
// variables exist for tests only; the unit sets none.
const firstBootScriptTemplate = `#!/bin/sh
# rackboot-firstboot: report the stage Done of this host's installation to
# rackboot, once. Written by rackboot.
url='@URL@'
token_file=${RACKBOOT_FIRSTBOOT_TOKEN:-` + FirstBootTokenPath + `}
stamp=${RACKBOOT_FIRSTBOOT_STAMP:-` + FirstBootStamp + `}
console=${RACKBOOT_CONSOLE:-/dev/console}

[ -e "$stamp" ] && exit 0
if ! token=$(cat "$token_file"); then
	echo "` + FirstBootFailedMarker + ` no token" >"$console"
	exit 1
fi
if printf 'X-Secret-Key: %s\n' "$token" |
	curl -fsS -X PUT -H 'Content-Type: application/json' -H @- \
		--retry 30 --retry-delay 2 --retry-connrefused \
		-d '{"current_stage":"Done"}' -o /dev/null "$url"; then
	mkdir -p "${stamp%/*}" && : >"$stamp"
	rm -f "$token_file"
	echo "` + FirstBootDoneMarker + `" >"$console"
	exit 0
fi
echo "` + FirstBootFailedMarker + `" >"$console"
exit 1
`

func firstBootScript(progressURL string) string {
	return strings.Replace(firstBootScriptTemplate, "@URL@", progressURL, 1)
}
