//go:build qlessbuilds

package tests

import (
	"crypto/sha1"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/qlessd/qlessd/internal/qlessbuilds"
	"github.com/qlessd/qlessd/qless"
)

// clientBuild is one qless.lua that a client library ships, as qlessd gets
// it (Stock) and as redis-server 7.0 can load it (Redis).
type clientBuild struct {
	Build    string // qless-core commit, as in qless.Profiles
	Stock    string
	Redis    string
	SHA      string // SHA1 of Stock, checked against qless.Profiles
	RedisSHA string // SHA1 of Redis
}

// clientBuilds builds the four known scripts from the local git mirrors,
// in the order of qless.Profiles. It skips the test when a mirror is absent.
func clientBuilds(t *testing.T) []clientBuild {
	m := qlessbuilds.DefaultMirrors()
	if err := m.Check(); err != nil {
		t.Skip(err)
	}
	tmp := t.TempDir()
	var out []clientBuild
	for _, p := range qless.Profiles {
		body, err := m.Script(p.Build)
		if err != nil {
			t.Fatal(err)
		}
		b := clientBuild{Build: p.Build, Stock: body, Redis: qlessbuilds.RedisLoadable(body), SHA: sha1Hex(body)}
		b.RedisSHA = sha1Hex(b.Redis)
		if b.SHA != p.SHA {
			t.Fatalf("build %s: script SHA1 %s, qless.Profiles says %s", p.Build, b.SHA, p.SHA)
		}
		// The built files live only in the test's temporary directory.
		for name, text := range map[string]string{".lua": b.Stock, "-redis.lua": b.Redis} {
			if err := os.WriteFile(filepath.Join(tmp, "qless-"+p.Build+name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, b)
	}
	return out
}

func sha1Hex(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}
