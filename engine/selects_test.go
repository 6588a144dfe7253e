package engine

import "testing"

func TestSelects(t *testing.T) {
	labels := map[string]string{"cluster": "c1", "rack": "r7"}
	for _, c := range []struct {
		sel  map[string]string
		want bool
	}{
		{nil, false}, // an empty selector selects nothing
		{map[string]string{"cluster": "c1"}, true},
		{map[string]string{"cluster": "c1", "rack": "r7"}, true},
		{map[string]string{"cluster": "c2"}, false},
		{map[string]string{"cluster": "c1", "row": "1"}, false},
	} {
		if got := Selects(c.sel, labels); got != c.want {
			t.Errorf("Selects(%v) = %v, want %v", c.sel, got, c.want)
		}
	}
}
