package workflow

import (
	"crypto/sha512"
	"encoding/hex"
	"text/template"
)

// Tinkerbell builds with Sprig v3.3.0; Debian packages 3.2.3 (with 3.3.0's camelcase =
// xstrings.ToPascalCase already patched in). The one hermetic function 3.3.0 adds, sha512sum, is
// added here when the packaged Sprig lacks it, so templates see the same map.
func addSprigGap(m template.FuncMap) {
	if _, ok := m["sha512sum"]; !ok {
		m["sha512sum"] = func(s string) string {
			h := sha512.Sum512([]byte(s))
			return hex.EncodeToString(h[:])
		}
	}
}
