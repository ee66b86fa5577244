//go:build !linux

package server

// Without io_uring the loop reads and writes one call at a time (and
// elsewhere than Linux there is no loop).

type ring struct{ size uint32 }

func newRing() (*ring, error)                            { return nil, errNoLoop }
func (r *ring) add(recv bool, fd int, b []byte, tag int) {}
func (r *ring) run(res []int32) error                    { return errNoLoop }
func (r *ring) close()                                   {}
func ringResult(res int32) (int, error)                  { return 0, errNoLoop }
func ringUnsupported(res int32) bool                     { return true }
