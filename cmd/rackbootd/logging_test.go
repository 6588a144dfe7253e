package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestJournalField(t *testing.T) {
	for key, want := range map[string]string{
		"mac":       "MAC",
		"infra_env": "INFRA_ENV",
		"base-url":  "BASE_URL",
		"_SYSTEMD":  "SYSTEMD",
		"9lives":    "F_9LIVES",
		"":          "F_",
	} {
		if got := journalField(key); got != want {
			t.Errorf("journalField(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestJournalStream: only the file $JOURNAL_STREAM names is the journal.
func TestJournalStream(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	st := fi.Sys().(*syscall.Stat_t)
	t.Setenv("JOURNAL_STREAM", fmt.Sprintf("%d:%d", st.Dev, st.Ino))
	if !isJournalStream(f) {
		t.Error("the stream JOURNAL_STREAM names is not taken for the journal")
	}
	if isJournalStream(os.Stdin) {
		t.Error("another file is taken for the journal")
	}
	t.Setenv("JOURNAL_STREAM", "")
	if isJournalStream(f) {
		t.Error("without JOURNAL_STREAM a file is taken for the journal")
	}
}
