package nmstate

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzConvert: any document gives either files of the right shape (the
// same twice) or an *Error; never a panic.
func FuzzConvert(f *testing.F) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "*", "input.yaml"))
	for _, p := range inputs {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(eth0Static))
	f.Add([]byte("interfaces:\n- &a {name: eth0, type: ethernet}\n- *a\n"))
	f.Add([]byte("interfaces: [{name: bond0, type: bond, link-aggregation: {mode: active-backup, port: [eth0, eth1]}}]"))
	f.Add([]byte("interfaces: [{name: br0, type: linux-bridge, bridge: {port: [{name: eth0}]}}]\nroutes: {config: [{destination: 0.0.0.0/0, next-hop-interface: br0}]}"))
	nics := []NIC{{Name: "eth0", MAC: "02:00:00:00:00:01"}, {Name: "eth1", MAC: "02:00:00:00:00:02"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		check := func(files []File, err error) {
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error %T %v is not an *Error", err, err)
				}
				return
			}
			for _, file := range files {
				if err := keyfileShape(file); err != nil {
					t.Fatalf("%s: %v\n%s", file.Name, err, file.Data)
				}
			}
		}
		a, err := Convert(data, nics)
		check(a, err)
		if err == nil {
			host := make([]File, len(a))
			for i, file := range a {
				host[i] = File{Name: "host0/" + file.Name, Data: file.Data}
			}
			_, renamed, err := SelectHost(host, map[string]string{"02:00:00:00:00:01": "ens3", "02:00:00:00:00:02": "eth0"})
			if err != nil {
				t.Fatalf("SelectHost on converted files: %v", err)
			}
			check(renamed, nil)
		}
		if b, err2 := Convert(data, nics); (err == nil) != (err2 == nil) || !sameFiles(a, b) {
			t.Fatal("conversion is not deterministic")
		}
		check(ConvertNMStateConfig(data))
	})
}
