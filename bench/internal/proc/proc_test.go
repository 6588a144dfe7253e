package proc

import (
	"context"
	"os"
	"testing"
	"time"
)

func TestReadMemOfSelf(t *testing.T) {
	m, err := ReadMem(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSSKiB <= 0 || m.HWMKiB < m.RSSKiB {
		t.Errorf("mem = %+v, want RSS > 0 and HWM >= RSS", m)
	}
}

func TestCPUGrowsWithWork(t *testing.T) {
	before := treeCPU(os.Getpid())
	x := 0
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); x++ {
		if x%1_000_000 == 0 && treeCPU(os.Getpid())-before >= 50*time.Millisecond {
			return
		}
	}
	t.Errorf("CPU time stayed near %v during 30 s of busy loop", before)
}

func TestBusyIsAFraction(t *testing.T) {
	b, err := Busy(context.Background(), 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if b < 0 || b > 1 {
		t.Errorf("Busy = %v, want a fraction", b)
	}
}
