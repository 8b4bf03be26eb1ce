//! Pictures for a model that reads them: the format and size read from the
//! file's header (PNG, JPEG), a PNG scaled down to a long side of at most
//! [`MAX_SIDE`] px, and the `data:` URL the model gets.

/// The longest side of a picture sent to the model.
pub(crate) const MAX_SIDE: u32 = 1280;

/// A picture's format and size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ImageInfo {
    /// `image/png` or `image/jpeg`.
    pub(crate) mime: &'static str,
    pub(crate) width: u32,
    pub(crate) height: u32,
}

/// Why a picture cannot be sent.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum ImageError {
    /// Neither PNG nor JPEG, or a header that cannot be read.
    #[error("not a PNG or JPEG picture")]
    Unknown,
    /// A JPEG larger than [`MAX_SIDE`] (no JPEG decoder is built in to scale it).
    #[error("the JPEG is {width}×{height} px; scale it to at most {MAX_SIDE} px on the long side first")]
    JpegTooLarge { width: u32, height: u32 },
    /// The PNG could not be decoded or encoded.
    #[error("the PNG cannot be read: {0}")]
    Png(String),
}

/// The format and size of `bytes`, from the header alone.
pub(crate) fn info(bytes: &[u8]) -> Option<ImageInfo> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() >= 24 {
        let width = u32::from_be_bytes([bytes[16], bytes[17], bytes[18], bytes[19]]);
        let height = u32::from_be_bytes([bytes[20], bytes[21], bytes[22], bytes[23]]);
        return Some(ImageInfo { mime: "image/png", width, height });
    }
    if bytes.starts_with(&[0xFF, 0xD8]) {
        return jpeg_size(bytes).map(|(width, height)| ImageInfo { mime: "image/jpeg", width, height });
    }
    None
}

/// The size in a JPEG's start-of-frame segment.
fn jpeg_size(bytes: &[u8]) -> Option<(u32, u32)> {
    let mut at = 2;
    while at + 4 <= bytes.len() {
        if bytes[at] != 0xFF {
            return None;
        }
        let marker = bytes[at + 1];
        if marker == 0xFF {
            at += 1;
            continue;
        }
        if marker == 0xD8 || marker == 0x01 || (0xD0..=0xD7).contains(&marker) {
            at += 2;
            continue;
        }
        let length = usize::from(u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]));
        let is_frame = (0xC0..=0xCF).contains(&marker) && !matches!(marker, 0xC4 | 0xC8 | 0xCC);
        if is_frame {
            let segment = bytes.get(at + 4..at + 9)?;
            let height = u32::from(u16::from_be_bytes([segment[1], segment[2]]));
            let width = u32::from(u16::from_be_bytes([segment[3], segment[4]]));
            return Some((width, height));
        }
        at += 2 + length;
    }
    None
}

/// The picture as the model gets it: at most [`MAX_SIDE`] px on the long
/// side (a larger PNG is scaled down), as a `data:` URL.
pub(crate) fn for_model(bytes: &[u8]) -> Result<String, ImageError> {
    let info = info(bytes).ok_or(ImageError::Unknown)?;
    if info.width.max(info.height) <= MAX_SIDE {
        return Ok(data_url(info.mime, bytes));
    }
    match info.mime {
        "image/png" => Ok(data_url("image/png", &scale_png(bytes, MAX_SIDE)?)),
        _ => Err(ImageError::JpegTooLarge { width: info.width, height: info.height }),
    }
}

/// A `data:` URL of `bytes`.
pub(crate) fn data_url(mime: &str, bytes: &[u8]) -> String {
    format!("data:{mime};base64,{}", base64(bytes))
}

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Scales a PNG down so its long side is `max_side` px (each new pixel the
/// average of the pixels it covers); 8-bit, same colour type.
fn scale_png(bytes: &[u8], max_side: u32) -> Result<Vec<u8>, ImageError> {
    let png_error = |e: &dyn std::fmt::Display| ImageError::Png(e.to_string());
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| png_error(&e))?;
    let size = reader.output_buffer_size().ok_or_else(|| ImageError::Png("too large".into()))?;
    let mut pixels = vec![0; size];
    let frame = reader.next_frame(&mut pixels).map_err(|e| png_error(&e))?;
    let (width, height) = (frame.width as usize, frame.height as usize);
    let channels = frame.color_type.samples();
    let scale = max_side as f64 / width.max(height) as f64;
    let new_width = ((width as f64 * scale).round() as usize).max(1);
    let new_height = ((height as f64 * scale).round() as usize).max(1);
    let stride = frame.line_size;
    let mut out = vec![0u8; new_width * new_height * channels];
    for y in 0..new_height {
        let (y0, y1) =
            (y * height / new_height, ((y + 1) * height / new_height).max(y * height / new_height + 1));
        for x in 0..new_width {
            let (x0, x1) =
                (x * width / new_width, ((x + 1) * width / new_width).max(x * width / new_width + 1));
            for c in 0..channels {
                let mut sum = 0u64;
                for row in y0..y1 {
                    for col in x0..x1 {
                        sum += u64::from(pixels[row * stride + col * channels + c]);
                    }
                }
                let count = ((y1 - y0) * (x1 - x0)) as u64;
                out[(y * new_width + x) * channels + c] = (sum / count) as u8;
            }
        }
    }
    let mut encoded = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut encoded, new_width as u32, new_height as u32);
        encoder.set_color(frame.color_type);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(|e| png_error(&e))?;
        writer.write_image_data(&out).map_err(|e| png_error(&e))?;
    }
    Ok(encoded)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn png_of(width: u32, height: u32) -> Vec<u8> {
        let mut bytes = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut bytes, width, height);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header().unwrap();
            let data: Vec<u8> = (0..width * height * 3).map(|i| (i % 251) as u8).collect();
            writer.write_image_data(&data).unwrap();
        }
        bytes
    }

    /// A minimal JPEG header: SOI, an APP0 segment, then SOF0 with the size.
    fn jpeg_header(width: u16, height: u16) -> Vec<u8> {
        let mut bytes = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xC0, 0x00, 0x11, 0x08];
        bytes.extend_from_slice(&height.to_be_bytes());
        bytes.extend_from_slice(&width.to_be_bytes());
        bytes.extend_from_slice(&[0x03, 0x01, 0x22, 0x00]);
        bytes
    }

    #[test]
    fn base64_matches_the_standard_vectors() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded, "{plain}");
        }
        assert_eq!(base64(&[0xFF, 0xFE, 0xFD]), "//79");
    }

    #[test]
    fn sizes_are_read_from_png_and_jpeg_headers() {
        assert_eq!(info(&png_of(30, 20)), Some(ImageInfo { mime: "image/png", width: 30, height: 20 }));
        assert_eq!(
            info(&jpeg_header(4000, 3000)),
            Some(ImageInfo { mime: "image/jpeg", width: 4000, height: 3000 })
        );
        assert_eq!(info(b"GIF89a...."), None);
    }

    #[test]
    fn a_small_picture_goes_as_it_is_and_a_large_png_is_scaled_to_1280() {
        let small = png_of(64, 48);
        assert_eq!(for_model(&small).unwrap(), data_url("image/png", &small));

        let large = png_of(2000, 1000);
        let url = for_model(&large).unwrap();
        let encoded = url.strip_prefix("data:image/png;base64,").unwrap();
        // Decode the header of the scaled picture back.
        let scaled = scale_png(&large, MAX_SIDE).unwrap();
        assert_eq!(info(&scaled), Some(ImageInfo { mime: "image/png", width: 1280, height: 640 }));
        assert_eq!(base64(&scaled), encoded);

        assert_eq!(
            for_model(&jpeg_header(4000, 3000)),
            Err(ImageError::JpegTooLarge { width: 4000, height: 3000 })
        );
        assert_eq!(for_model(b"not a picture"), Err(ImageError::Unknown));
    }
}
