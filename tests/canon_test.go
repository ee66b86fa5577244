package tests

import (
	"bufio"
	"sort"
	"strconv"
	"strings"
)

// canonPairs renders a raw array reply of field/value pairs (HGETALL) with
// the pairs sorted, for replies whose order Redis leaves to its hash table.
func canonPairs(raw string) string {
	if !strings.HasPrefix(raw, "*") {
		return raw
	}
	rd := bufio.NewReader(strings.NewReader(raw))
	head, _ := rd.ReadString('\n')
	n, err := strconv.Atoi(strings.TrimSpace(head[1:]))
	if err != nil || n <= 0 || n%2 != 0 {
		return raw
	}
	pairs := make([]string, 0, n/2)
	for i := 0; i < n; i += 2 {
		var a, b strings.Builder
		if readReply(rd, &a) != nil || readReply(rd, &b) != nil {
			return raw
		}
		pairs = append(pairs, a.String()+b.String())
	}
	sort.Strings(pairs)
	return head + strings.Join(pairs, "")
}
