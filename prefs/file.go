package prefs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"time"

	"vastview/base/fsutil"
)

// FileStore is a Store kept in a JSON file of string values. Each change
// is put in place at once and atomically (fsutil.WriteAtomic: a reader, a
// crash or a kill never leaves half a file), merged under a lock of the
// file's folder with what other processes wrote there since, so that
// viewers open at the same time keep each other's changes; and a change
// another process made is seen on the next read. It is safe for
// concurrent use.
type FileStore struct {
	path string
	// OnError, when set, is told of a change that could not be written
	// (it stays in memory and is written with the next change).
	OnError func(error)

	mu    sync.Mutex
	m     map[string]string
	dirty map[string]bool // changed here, not yet in the file
	stamp stamp           // the file as last read or written
}

// stamp tells a file changed by another process from the one read.
type stamp struct {
	mod  time.Time
	size int64
}

func stampOf(path string) stamp {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}
	}
	return stamp{fi.ModTime(), fi.Size()}
}

// OpenFile reads the preferences kept at path. Where there is no file
// yet, the one at older (an older version's preferences, in the same
// format; "" for none) is what it holds at first, written at once. A file
// that cannot be read as preferences is moved aside to path+".unreadable",
// kept for the user, and the store starts empty; the error says so. The
// store is usable in every case.
func OpenFile(path, older string) (*FileStore, error) {
	s := &FileStore{path: path, m: map[string]string{}, dirty: map[string]bool{}}
	m, err := readFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		seed, _ := readFile(older)
		if len(seed) == 0 {
			return s, nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		maps.Copy(s.m, seed)
		for k := range seed {
			s.dirty[k] = true
		}
		return s, s.write()
	case err != nil:
		aside := path + ".unreadable"
		if rerr := os.Rename(path, aside); rerr != nil {
			return s, fmt.Errorf("preferences %s: %w (and it could not be moved aside: %v)", path, err, rerr)
		}
		return s, fmt.Errorf("preferences %s: %w; starting afresh, the file is kept as %s", path, err, aside)
	}
	s.m, s.stamp = m, stampOf(path)
	return s, nil
}

// readFile reads the values of a preferences file; values other than
// strings are left out.
func readFile(path string) (map[string]string, error) {
	if path == "" {
		return nil, fs.ErrNotExist
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	m := make(map[string]string, len(raw))
	for k, v := range raw {
		if s, ok := v.(string); ok {
			m[k] = s
		}
	}
	return m, nil
}

// String returns the value of key, or "".
func (s *FileStore) String(key string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := stampOf(s.path); st != s.stamp {
		s.merge()
	}
	return s.m[key]
}

// merge takes what the file holds now, keeping the changes made here that
// are not in it yet. Called with mu held.
func (s *FileStore) merge() {
	st := stampOf(s.path)
	m, err := readFile(s.path)
	if err != nil {
		return
	}
	for k, v := range m {
		if !s.dirty[k] {
			s.m[k] = v
		}
	}
	s.stamp = st
}

// SetString sets key to value and writes the file.
func (s *FileStore) SetString(key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v, ok := s.m[key]; ok && v == value && len(s.dirty) == 0 {
		return
	}
	s.m[key] = value
	s.dirty[key] = true
	if err := s.write(); err != nil && s.OnError != nil {
		s.OnError(err)
	}
}

// write puts the file in place with the changes made here over what it
// holds now. Called with mu held.
func (s *FileStore) write() error {
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("preferences: %w", err)
	}
	lock, err := fsutil.LockDir(dir, fsutil.Exclusive)
	if err != nil {
		return fmt.Errorf("preferences: %w", err)
	}
	defer lock.Unlock()
	s.merge()
	b, err := json.MarshalIndent(s.m, "", "\t")
	if err != nil {
		return fmt.Errorf("preferences: %w", err)
	}
	if err := fsutil.WriteAtomic(s.path, b, []byte("\n")); err != nil {
		return fmt.Errorf("preferences: %w", err)
	}
	clear(s.dirty)
	s.stamp = stampOf(s.path)
	return nil
}
