package store

import (
	"strconv"
	"strings"
	"testing"
)

// hmget is HMGet's answers as "v" or "-" (absent), joined by commas.
func hmget(t *testing.T, tx *Tx, key string, fields ...string) (string, error) {
	t.Helper()
	bs := make([][]byte, len(fields))
	for i, f := range fields {
		bs[i] = []byte(f)
	}
	var out []string
	err := tx.HMGet(key, bs, func(v string, ok bool) {
		if !ok {
			v = "-"
		}
		out = append(out, v)
	})
	return strings.Join(out, ","), err
}

// TestHMGetMatchesHGet checks one-lookup HMGET against HGET per field on an
// inline hash, one stored as items, a missing key and another type.
func TestHMGetMatchesHGet(t *testing.T) {
	db := openTemp(t, t.TempDir())
	defer db.Close()
	db.Update(func(tx *Tx) error {
		tx.HSet("small", "a", "1", "b", "", "c", "3")
		big := []string{}
		for i := 0; i < 600; i++ {
			big = append(big, "f"+strconv.Itoa(i), "v"+strconv.Itoa(i))
		}
		tx.HSet("big", big...)
		tx.SetString("str", "x", 0, false)
		// An inline hash asked for more fields than one walk answers, and
		// for fewer, in another order than stored.
		var wide, many, manyWant, some, someWant []string
		for i := 0; i < 40; i++ {
			wide = append(wide, "w"+strconv.Itoa(i), "x"+strconv.Itoa(i))
			many = append(many, "w"+strconv.Itoa(39-i))
			manyWant = append(manyWant, "x"+strconv.Itoa(39-i))
		}
		for i := 0; i < 20; i += 2 {
			some = append(some, "w"+strconv.Itoa(i), "nope"+strconv.Itoa(i))
			someWant = append(someWant, "x"+strconv.Itoa(i), "-")
		}
		tx.HSet("wide", wide...)
		for _, c := range []struct {
			key    string
			fields []string
			want   string
		}{
			{"small", []string{"c", "zz", "a", "b", "a"}, "3,-,1,,1"},
			{"big", []string{"f599", "nope", "f0"}, "v599,-,v0"},
			{"missing", []string{"a", "b"}, "-,-"},
			{"wide", many, strings.Join(manyWant, ",")},
			{"wide", some, strings.Join(someWant, ",")},
		} {
			got, err := hmget(t, tx, c.key, c.fields...)
			if err != nil || got != c.want {
				t.Errorf("HMGet %s %v = %q, %v; want %q", c.key, c.fields, got, err, c.want)
			}
			var per []string
			for _, f := range c.fields {
				v, ok, _ := tx.HGet(c.key, f)
				if !ok {
					v = "-"
				}
				per = append(per, v)
			}
			if p := strings.Join(per, ","); p != got {
				t.Errorf("HMGet %s = %q but HGet gives %q", c.key, got, p)
			}
		}
		if _, err := hmget(t, tx, "str", "a"); err != ErrWrongType {
			t.Errorf("HMGet on a string: %v", err)
		}
		return nil
	})
}
