package tiff

import "fmt"

// Tags used by the reader.
const (
	tagNewSubfileType  = 254
	tagImageWidth      = 256
	tagImageLength     = 257
	tagBitsPerSample   = 258
	tagCompression     = 259
	tagPhotometric     = 262
	tagFillOrder       = 266
	tagDescription     = 270
	tagStripOffsets    = 273
	tagSamplesPerPixel = 277
	tagRowsPerStrip    = 278
	tagStripByteCounts = 279
	tagXResolution     = 282
	tagYResolution     = 283
	tagPlanarConfig    = 284
	tagResolutionUnit  = 296
	tagPredictor       = 317
	tagT4Options       = 292
	tagT6Options       = 293
	tagColorMap        = 320
	tagTileWidth       = 322
	tagTileLength      = 323
	tagTileOffsets     = 324
	tagTileByteCounts  = 325
	tagSubIFDs         = 330
	tagExtraSamples    = 338
	tagSampleFormat    = 339
	tagJPEGTables      = 347
	tagYCbCrSubSamp    = 530
	tagImageDepth      = 32997
	tagIJMetaCounts    = 50838 // ImageJ's IJMetadataByteCounts
	tagIJMeta          = 50839 // ImageJ's IJMetadata
)

// Compression schemes that can be decoded.
const (
	cNone     = 1
	cG3       = 3
	cG4       = 4
	cLZW      = 5
	cJPEG     = 7
	cDeflate  = 8
	cPackBits = 32773
	cDeflOld  = 32946
	cZSTD     = 50000
	cLZMA     = 34925
	cWebP     = 50001
)

var compressionNames = map[int]string{
	cLZW: "LZW", cDeflate: "Deflate", cDeflOld: "Deflate", cPackBits: "PackBits", cZSTD: "ZSTD",
	2: "CCITT RLE", 3: "CCITT Group 3", 4: "CCITT Group 4", 6: "old-style JPEG",
	7: "JPEG", 9: "JBIG", 10: "JBIG", 32766: "NeXT", 32771: "CCITT RLEW",
	32809: "ThunderScan", 32895: "IT8", 32908: "PixarFilm", 32909: "PixarLog",
	33003: "JPEG 2000", 33005: "JPEG 2000", 34661: "JBIG", 34676: "SGILog",
	34677: "SGILog24", 34712: "JPEG 2000", 34887: "LERC", 34925: "LZMA",
	34926: "ZSTD (old code)", 34927: "WebP", 34933: "PNG", 34934: "JPEG XR",
	50001: "WebP", 50002: "JPEG XL", 52546: "JPEG XL",
}

// compressionName names compression scheme c.
func compressionName(c int) string {
	if n, ok := compressionNames[c]; ok {
		return n
	}
	return fmt.Sprintf("compression %d", c)
}
