package loader

import "testing"

func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"s3+http://AKID:SECRET@127.0.0.1:7070/bkt/x.ome.zarr: invalid S3 address",
			"s3+http://xxxxx@127.0.0.1:7070/bkt/x.ome.zarr: invalid S3 address"},
		{"open https://tok@host/a/b and http://u:p@h:1/c", "open https://xxxxx@host/a/b and http://xxxxx@h:1/c"},
		{"s3+https://AKID:wJalr/K7MD+bP@host/bkt/k", "s3+https://xxxxx@host/bkt/k"},
		{"GET https://h/x.zarr?X-Amz-Credential=AK&X-Amz-Signature=ab12&part=3#f: 403",
			"GET https://h/x.zarr?X-Amz-Credential=xxxxx&X-Amz-Signature=xxxxx&part=3#f: 403"},
		{`{"path":"http://h/x?token=T&sig=S"}`, `{"path":"http://h/x?token=xxxxx&sig=xxxxx"}`},
		{"s3://bucket/name@2x.zarr", "s3://bucket/name@2x.zarr"},
		{"no address: a@b:c", "no address: a@b:c"},
		{"http://h:8080/x?view=1", "http://h:8080/x?view=1"},
	} {
		if got := Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
