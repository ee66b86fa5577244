package cluster

import (
	"encoding/binary"
	"encoding/json"
	"errors"
)

// The log's entries. Each carries the leader's clock when it proposed it,
// so a new leader never runs behind what the old one did (lead).
//
//	'F' nonce(8) clock(8) frame   a frame of store records (store/replicate.go)
//	'A' clock(8) JSON             a node's client address: {"id":..,"addr":..}
//	'D' clock(8) JSON             the leader's store digest: {"from":..,"digest":..} (digest.go)
const (
	entryFrame  = 'F'
	entryAddr   = 'A'
	entryDigest = 'D'
)

var errBadEntry = errors.New("a cluster log entry qlessd does not know")

func encodeFrame(nonce uint64, clock int64, frame []byte) []byte {
	b := make([]byte, 0, 17+len(frame))
	b = append(b, entryFrame)
	b = binary.BigEndian.AppendUint64(b, nonce)
	b = binary.BigEndian.AppendUint64(b, uint64(clock))
	return append(b, frame...)
}

type addrEntry struct {
	ID   string `json:"id"`
	Addr string `json:"addr"`
}

func encodeAddr(clock int64, a addrEntry) []byte { return encodeJSONEntry(entryAddr, clock, a) }

// encodeJSONEntry is an entry of kind whose body is v in JSON: a node's
// address, a store digest.
func encodeJSONEntry(kind byte, clock int64, v any) []byte {
	j, _ := json.Marshal(v)
	b := make([]byte, 0, 9+len(j))
	b = append(b, kind)
	b = appendClock(b, clock)
	return append(b, j...)
}

func appendClock(b []byte, clock int64) []byte {
	return binary.BigEndian.AppendUint64(b, uint64(clock))
}

// decoded is one entry.
type decoded struct {
	kind   byte
	nonce  uint64
	clock  int64
	frame  []byte
	addr   addrEntry
	digest digestEntry
}

func decodeEntry(b []byte) (decoded, error) {
	var d decoded
	if len(b) < 9 {
		return d, errBadEntry
	}
	d.kind = b[0]
	switch d.kind {
	case entryFrame:
		if len(b) < 17 {
			return d, errBadEntry
		}
		d.nonce = binary.BigEndian.Uint64(b[1:9])
		d.clock = int64(binary.BigEndian.Uint64(b[9:17]))
		d.frame = b[17:]
	case entryAddr:
		d.clock = int64(binary.BigEndian.Uint64(b[1:9]))
		if err := json.Unmarshal(b[9:], &d.addr); err != nil {
			return d, err
		}
	case entryDigest:
		d.clock = int64(binary.BigEndian.Uint64(b[1:9]))
		if err := json.Unmarshal(b[9:], &d.digest); err != nil {
			return d, err
		}
	default:
		return d, errBadEntry
	}
	return d, nil
}
