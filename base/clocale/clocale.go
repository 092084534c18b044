// Package clocale makes the C locale (LANG=C.UTF-8, as containers have)
// read as English by Fyne's translations, which otherwise log "Error
// parsing user locale C" on stderr from their package initialisation,
// before main runs.
//
// Under the C locale, with LANGUAGE unset, it sets LANGUAGE=en: the locale
// library Fyne uses reads LANGUAGE whenever the locale (LC_ALL,
// LC_MESSAGES or LANG, the first one set) is not exactly C or POSIX, and
// English is what Fyne falls back to for C anyway. Any other locale, or a
// LANGUAGE the user set, is left as it is.
//
// It must run before Fyne's initialisation. Go initialises, at each step,
// the first package in import-path order whose imports are all
// initialised. This package's module path, 0clocale, sorts before every
// other import path (a digit sorts before any letter), and it imports only
// syscall, so it runs right after syscall, before os and so before
// anything that reads the environment through it (Fyne's lang package
// imports log, which imports os).
package clocale

import "syscall"

// init sets LANGUAGE=en when the locale is C.* or POSIX.* and LANGUAGE is
// unset or empty.
func init() {
	if v, _ := syscall.Getenv("LANGUAGE"); v != "" {
		return
	}
	loc := ""
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v, _ := syscall.Getenv(k); v != "" {
			loc = v
			break
		}
	}
	if hasPrefix(loc, "C.") || hasPrefix(loc, "POSIX.") {
		syscall.Setenv("LANGUAGE", "en")
	}
}

// hasPrefix is strings.HasPrefix, written out to keep this package's
// imports to syscall alone.
func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
