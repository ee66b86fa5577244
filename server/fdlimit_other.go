//go:build !unix

package server

import "errors"

var errNoRlimit = errors.New("no file-descriptor limit here")

func raiseFDLimit(want uint64) (was, have uint64, err error) { return 0, 0, errNoRlimit }
func isFDLimit(err error) bool                               { return false }
func openSpareFD() int                                       { return -1 }
func closeSpareFD(fd int)                                    {}
