package main

import "testing"

// The yes/no flags take only yes or no: anything else stops start-up with
// exit code 2 rather than quietly meaning no.
func TestYesNoFlagsRefuseOtherValues(t *testing.T) {
	for _, flag := range []string{"--protected-mode", "--event-loop", "--io-uring", "--native-client-scripts", "--syslog-enabled"} {
		for _, v := range []string{"maybe", "1", "", "yess"} {
			if code := run([]string{flag, v, "--dir", t.TempDir(), "--port", "0"}); code != exitUsage {
				t.Errorf("%s %q: exit code %d, want 2", flag, v, code)
			}
		}
		// As redis-server reads them, in any case.
		s, _, err := loadSettings([]string{flag, "YES"})
		if err != nil || s[flag[2:]] != "yes" {
			t.Errorf("%s YES: %q %v", flag, s[flag[2:]], err)
		}
	}
}
