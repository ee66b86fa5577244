package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/qlessd/qlessd/store"
)

// Exit codes of qlessd check.
const (
	checkLoads   = 0 // the file loads (start-up drops an incomplete last write itself)
	checkDamaged = 1 // start-up refuses the file
	checkFailed  = 2 // bad arguments, no data file, a server uses the directory, or the file could not be read or repaired
)

// runCheck is `qlessd check --dir DIR [--repair]`: it reads the data file
// as start-up would and says what it holds; with --repair it cuts an
// incomplete last write or everything from the damage on, after copying
// the file beside it. It holds the directory's lock meanwhile, so it
// refuses a directory a running qlessd uses.
func runCheck(argv []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("qlessd check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "./qlessd-data", "data directory whose data file to check")
	repair := fs.Bool("repair", false, "cut the file to its last good record, after copying it to qlessd.db.broken-<time> beside it (stop qlessd first)")
	if err := fs.Parse(argv); err != nil {
		return checkFailed
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "qlessd check: unexpected argument %q\n", fs.Arg(0))
		return checkFailed
	}
	release, err := store.LockDataDir(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "qlessd check: %v\n", err)
		return checkFailed
	}
	defer release()
	path, rep, err := store.CheckDataFile(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "qlessd check: %v\n", err)
		return checkFailed
	}
	printReport(stdout, path, rep)
	bad := rep.Damage != nil || rep.Torn > 0
	if !bad || !*repair {
		if rep.Damage != nil {
			return checkDamaged
		}
		return checkLoads
	}
	backup, err := store.RepairDataFile(*dir, rep)
	if err != nil {
		fmt.Fprintf(stderr, "qlessd check: repair: %v\n", err)
		return checkFailed
	}
	fmt.Fprintf(stdout, "repaired: the whole file was copied to %s, and %s was cut to %d bytes (%d bytes dropped)\n",
		backup, path, rep.Good, rep.Size-rep.Good)
	return checkLoads
}

func printReport(w io.Writer, path string, rep store.JournalReport) {
	fmt.Fprintf(w, "data file: %s, %d bytes\n", path, rep.Size)
	fmt.Fprintf(w, "records: %d kept (%d checksummed frames, %d of them without links (not chained); %d records written before checksums, not checked)\n",
		rep.Records, rep.Frames, rep.OldFrames, rep.Unchecked)
	fmt.Fprintf(w, "last good offset: %d\n", rep.Good)
	switch {
	case rep.Damage != nil:
		fmt.Fprintf(w, "state: damaged at byte %d: %s; start-up refuses the file; --repair keeps the %d bytes before the damage\n",
			rep.Damage.At, rep.Damage.Reason, rep.Good)
	case rep.Torn > 0:
		fmt.Fprintf(w, "state: the last write is incomplete (%d bytes after byte %d, a crash in the middle of a write); start-up drops it\n",
			rep.Torn, rep.Good)
	default:
		fmt.Fprintln(w, "state: ok")
	}
}
