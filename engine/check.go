package engine

// A command is checked against the model before it is appended to the
// log, so that a refused request writes nothing: no log entry, and none of
// what the entry carried (a password inside a refused BMC address) on
// disk. The check is the command's own apply run against the model
// without writing: every command checks everything before its first write
// (Machine.applyCommand panics when one fails after writing), so the
// first write ends the check as a success. Apply checks again when the
// entry is applied: the model may have changed in between, or the entry
// came from elsewhere.

// dryRunDone is what a write panics with during a check.
type dryRunDone struct{}

// write marks the start of a change of the model; during a check it ends
// the check (the command passed).
func (tx *Tx) write() {
	if tx.dry {
		panic(dryRunDone{})
	}
}

// Check reports the domain error (ErrInvalid, ErrNotFound, ErrConflict)
// that applying cmd to m now would give, without changing m. It only
// reads m: hold a read lock (Store.Read) while it runs. A command issued
// under a raft term (Fenced) is checked without its term, which only the
// log entry knows.
func (m *Model) Check(cmd Command) (err error) {
	tx := &Tx{m: m, index: m.index + 1, at: cmd.Time(), quiet: true, dry: true}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(dryRunDone); !ok {
				panic(r)
			}
			err = nil
		}
	}()
	_, err = cmd.apply(tx)
	return err
}

// Check checks cmd against st's current state (Model.Check): the domain
// error a front door returns, with nothing written, before it applies
// cmd or anything that goes with it (the credentials Secret of a
// BareMetalHost). Store implementations check every command before they
// append it; a front door that writes several commands for one request
// checks the last ones before it applies the first.
func Check(st Store, cmds ...Command) error {
	var err error
	st.Read(func(m *Model) {
		for _, c := range cmds {
			if err = m.Check(c); err != nil {
				return
			}
		}
	})
	return err
}
