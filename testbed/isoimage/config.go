package isoimage

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Layout constants of the built ISO.
const (
	EmbedAreaSize = 256 << 10 // bytes of /images/ignition.img
	KargsAreaSize = 1024      // bytes of each kernel argument area
	DefaultKargs  = "console=ttyS0"
	EmbedPath     = "images/ignition.img"
	isolinuxCfg   = "isolinux/isolinux.cfg"
	grubCfg       = "boot/grub/grub.cfg"
)

// kargsArea is the reserved kernel argument area: the arguments, a newline,
// then '#' (a comment line to both bootloaders) up to KargsAreaSize.
func kargsArea(args string) string {
	return args + "\n" + strings.Repeat("#", KargsAreaSize-len(args)-1)
}

// isolinuxConfig returns isolinux.cfg and the offset of its kargs area.
func isolinuxConfig() (string, int) {
	head := "SERIAL 0 115200\nDEFAULT discovery\nPROMPT 0\nTIMEOUT 0\n" +
		"LABEL discovery\n  KERNEL /images/vmlinuz\n" +
		"  APPEND initrd=/images/initrd.img,/" + EmbedPath + " "
	return head + kargsArea(DefaultKargs) + "\n", len(head)
}

// grubConfig returns grub.cfg and the offset of its kargs area.
func grubConfig() (string, int) {
	head := "serial --unit=0 --speed=115200\nterminal_input serial console\nterminal_output serial console\n" +
		"set timeout=0\nset default=0\nmenuentry discovery {\n  linux /images/vmlinuz "
	tail := "\n  initrd /images/initrd.img /" + EmbedPath + "\n}\n"
	return head + kargsArea(DefaultKargs) + tail, len(head)
}

// grubEmbedded is the config built into the EFI binary: find the ISO and
// read its grub.cfg. The prefix stays on the memdisk, where the modules are.
const grubEmbedded = "search --no-floppy --file --set=root /coreos/igninfo.json\n" +
	"configfile ($root)/" + grubCfg + "\n"

type kargsFile struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Pad    string `json:"pad"`
	End    string `json:"end"`
}

// kargsJSON describes both kargs areas, as coreos-installer reads them.
func kargsJSON() (string, error) {
	_, ioff := isolinuxConfig()
	_, goff := grubConfig()
	return kargsJSONOf(DefaultKargs, ioff, goff)
}

// kargsJSONOf is coreos/kargs.json for the default kargs, the kargs area
// at ioff in isolinux.cfg and at goff in grub.cfg.
func kargsJSONOf(kargs string, ioff, goff int) (string, error) {
	b, err := json.MarshalIndent(map[string]any{
		"default": kargs,
		"size":    KargsAreaSize,
		"files": []kargsFile{
			{Path: isolinuxCfg, Offset: ioff, Pad: "#", End: "\n"},
			{Path: grubCfg, Offset: goff, Pad: "#", End: "\n"},
		},
	}, "", "  ")
	if err != nil {
		return "", fmt.Errorf("isoimage: %w", err)
	}
	return string(b) + "\n", nil
}

// ignInfoJSON names the embed area.
const ignInfoJSON = `{"file": "` + EmbedPath + `"}` + "\n"
