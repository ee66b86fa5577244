package main

import "testing"

// The yes/no flags take only yes or no: anything else stops start-up with
// exit code 2 rather than quietly meaning no.
func TestYesNoFlagsRefuseOtherValues(t *testing.T) {
	for _, flag := range []string{"--protected-mode", "--event-loop", "--io-uring"} {
		for _, v := range []string{"maybe", "YES", "1", ""} {
			if code := run([]string{flag, v, "--dir", t.TempDir(), "--port", "0"}); code != 2 {
				t.Errorf("%s %q: exit code %d, want 2", flag, v, code)
			}
		}
	}
}
