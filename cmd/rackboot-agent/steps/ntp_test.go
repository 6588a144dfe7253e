package steps_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/rackboot/rackboot/cmd/rackboot-agent/steps"
	"github.com/rackboot/rackboot/engine/models"
)

// ntpServer answers SNTP requests on 127.0.0.1 with its clock shifted by
// skew, at the given stratum.
func ntpServer(t *testing.T, skew time.Duration, stratum byte) string {
	t.Helper()
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 512)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if n < 48 {
				continue
			}
			recv := time.Now().Add(skew)
			out := make([]byte, 48)
			out[0] = 0<<6 | 4<<3 | 4 // no leap warning, version 4, server
			out[1] = stratum
			copy(out[24:32], buf[40:48]) // originate = the client's transmit
			binary.BigEndian.PutUint64(out[32:40], steps.NTPTimestamp(recv))
			binary.BigEndian.PutUint64(out[40:48], steps.NTPTimestamp(time.Now().Add(skew)))
			pc.WriteTo(out, from)
		}
	}()
	return pc.LocalAddr().String()
}

func closedUDPPort(t *testing.T) string {
	pc, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String()
	pc.Close()
	return addr
}

func TestSNTPQueryMeasuresOffset(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := steps.SNTPQuery(ctx, ntpServer(t, -90*time.Second, 2))
	if err != nil {
		t.Fatal(err)
	}
	if res.Stratum != 2 || res.Offset > -89*time.Second || res.Offset < -91*time.Second {
		t.Fatalf("%+v, want offset near -90 s", res)
	}
}

func TestNTPSynchronizer(t *testing.T) {
	good := ntpServer(t, 20*time.Millisecond, 2)
	good2 := ntpServer(t, 0, 3)
	far := ntpServer(t, time.Hour, 1)
	unsynced := ntpServer(t, 0, 0)
	gone := closedUDPPort(t)
	d := steps.Deps{
		NTPWait:   2 * time.Second,
		Appliance: func() (string, time.Duration, bool) { return "10.0.0.1:8090", 300 * time.Millisecond, true },
	}
	r := steps.NewRunner(d)
	arg, _ := json.Marshal(models.NtpSynchronizationRequest{NtpSource: good + "," + far + " " + unsynced + "," + gone + "," + good2})
	rep := r.Run(context.Background(), &models.Step{StepID: "ntp-synchronizer-1", StepType: models.StepTypeNtpSynchronizer, Args: []string{string(arg)}})
	if rep.ExitCode != 0 {
		t.Fatalf("%+v", rep)
	}
	var out models.NtpSynchronizationResponse
	if err := json.Unmarshal([]byte(rep.Output), &out); err != nil {
		t.Fatal(err)
	}
	want := []models.NtpSource{
		{SourceName: good, SourceState: models.SourceStateSynced},
		{SourceName: far, SourceState: models.SourceStateError},
		{SourceName: unsynced, SourceState: models.SourceStateError},
		{SourceName: gone, SourceState: models.SourceStateUnreachable},
		{SourceName: good2, SourceState: models.SourceStateCombined},
		{SourceName: "10.0.0.1:8090", SourceState: models.SourceStateCombined},
	}
	if len(out.NtpSources) != len(want) {
		t.Fatalf("%s", rep.Output)
	}
	for i, w := range want {
		if *out.NtpSources[i] != w {
			t.Errorf("source %d: %+v, want %+v", i, *out.NtpSources[i], w)
		}
	}
}

func TestNTPApplianceOnlyFarOff(t *testing.T) {
	r := steps.NewRunner(steps.Deps{Appliance: func() (string, time.Duration, bool) { return "appliance", -10 * time.Minute, true }})
	rep := r.Run(context.Background(), &models.Step{StepID: "ntp-1", StepType: models.StepTypeNtpSynchronizer, Args: []string{`{"ntp_source":""}`}})
	if rep.ExitCode != 0 || rep.Output != `{"ntp_sources":[{"source_name":"appliance","source_state":"error"}]}` {
		t.Fatalf("%+v", rep)
	}
}

func TestParseSNTP(t *testing.T) {
	pkt := make([]byte, 48)
	pkt[0], pkt[1] = 0x24, 2 // version 4, server
	binary.BigEndian.PutUint64(pkt[40:], 0xe9b1_0000_8000_0000)
	p, err := steps.ParseSNTP(pkt)
	if err != nil || p.Stratum != 2 || p.Mode != 4 || p.Transmit != 0xe9b1_0000_8000_0000 {
		t.Fatalf("%+v %v", p, err)
	}
	pkt[0] = 0x23 // a client request, not an answer
	if _, err := steps.ParseSNTP(pkt); !errors.Is(err, steps.ErrParse) {
		t.Fatalf("client packet: %v", err)
	}
	if _, err := steps.ParseSNTP(pkt[:47]); !errors.Is(err, steps.ErrParse) {
		t.Fatalf("short packet: %v", err)
	}
	now := time.Date(2026, 11, 21, 6, 0, 0, 250_000_000, time.UTC)
	if got := steps.NTPTimestamp(now); got>>32 != uint64(now.Unix()+2208988800) || got&0xffffffff != 1<<30 {
		t.Fatalf("NTPTimestamp %x", got)
	}
}

func FuzzParseSNTP(f *testing.F) {
	ok := make([]byte, 48)
	ok[0], ok[1] = 0x24, 2
	f.Add(ok)
	f.Add([]byte{0x1c, 1})
	f.Add(make([]byte, 68))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := steps.ParseSNTP(b)
		if err != nil {
			if !errors.Is(err, steps.ErrParse) {
				t.Fatalf("error %v does not wrap ErrParse", err)
			}
			return
		}
		if len(b) < 48 || p.Mode != 4 {
			t.Fatalf("accepted %x", b)
		}
	})
}
