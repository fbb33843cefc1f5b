//! PTX and the drivers that load it: a driver compiles PTX up to the ISA version of its own CUDA
//! release, so the `.version` line of a PTX module names the oldest driver that loads it.
//! [`driver_for_isa`] is that table; [`find`] reads the `.version` and `.target` of PTX text.
//! The crate reads them from the image of a module load that failed with
//! `CUDA_ERROR_UNSUPPORTED_PTX_VERSION`, and the `cuda-driver-table` tool from a program's
//! read-only data. Nothing here reads memory it is not given as a slice.

/// The CUDA release that introduced each PTX ISA version, as `(ISA major, ISA minor, CUDA
/// version)` with the CUDA version as `1000 * major + 10 * minor`: the oldest driver that loads
/// PTX of that ISA. Taken from the release history in NVIDIA's PTX ISA reference ("PTX Release
/// History"), which has one row per ISA version; ISA 8.6 came with CUDA 12.7, a release that was
/// never published, so PTX 8.6 needs a 12.8 driver in practice (12.7 is what is listed).
const ISA_RELEASES: &[(u32, u32, u32)] = &[
    (1, 0, 1000),
    (1, 1, 1010),
    (1, 2, 2000),
    (1, 3, 2010),
    (1, 4, 2020),
    (2, 0, 3000),
    (2, 1, 3010),
    (2, 2, 3020),
    (2, 3, 4000),
    (3, 0, 4010),
    (3, 1, 5000),
    (3, 2, 5050),
    (4, 0, 6000),
    (4, 1, 6050),
    (4, 2, 7000),
    (4, 3, 7050),
    (5, 0, 8000),
    (6, 0, 9000),
    (6, 1, 9010),
    (6, 2, 9020),
    (6, 3, 10000),
    (6, 4, 10010),
    (6, 5, 10020),
    (7, 0, 11000),
    (7, 1, 11010),
    (7, 2, 11020),
    (7, 3, 11030),
    (7, 4, 11040),
    (7, 5, 11050),
    (7, 6, 11060),
    (7, 7, 11070),
    (7, 8, 11080),
    (8, 0, 12000),
    (8, 1, 12010),
    (8, 2, 12020),
    (8, 3, 12030),
    (8, 4, 12040),
    (8, 5, 12050),
    (8, 6, 12070),
    (8, 7, 12080),
    (8, 8, 12090),
    (9, 0, 13000),
    (9, 1, 13010),
    (9, 2, 13020),
    (9, 3, 13030),
    (9, 4, 13040),
    (9, 5, 13050),
];

/// The oldest driver (`cuDriverGetVersion`'s number) that loads PTX of ISA `major.minor`; `None`
/// for an ISA the table does not list: one newer than this crate knows, or none that exists.
pub fn driver_for_isa(major: u32, minor: u32) -> Option<u32> {
    ISA_RELEASES
        .iter()
        .find(|(ma, mi, _)| (*ma, *mi) == (major, minor))
        .map(|(_, _, cuda)| *cuda)
}

/// The newest PTX ISA a driver of version `driver` loads, as `(major, minor)`; `None` for a
/// driver older than every ISA.
pub fn newest_isa_for_driver(driver: u32) -> Option<(u32, u32)> {
    ISA_RELEASES
        .iter()
        .rev()
        .find(|(_, _, cuda)| *cuda <= driver)
        .map(|(major, minor, _)| (*major, *minor))
}

/// The newest PTX ISA this crate knows, as `(major, minor)`.
pub fn newest_known_isa() -> (u32, u32) {
    let (major, minor, _) = ISA_RELEASES[ISA_RELEASES.len() - 1];
    (major, minor)
}

/// One PTX module found in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ptx {
    /// Where its `.version` line starts, from the start of the bytes searched.
    pub offset: usize,
    /// Its ISA version (`.version 9.0`: `(9, 0)`).
    pub isa: (u32, u32),
    /// Its target (`.target sm_90`: `sm_90`).
    pub target: String,
}

/// The PTX modules in `bytes`: every `.version X.Y` line (at the start of a line or of a
/// string) followed, within its next lines, by a `.target` line, as PTX begins.
pub fn find(bytes: &[u8]) -> Vec<Ptx> {
    const NEEDLE: &[u8] = b".version ";
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(i) = find_from(bytes, NEEDLE, at) {
        at = i + NEEDLE.len();
        if i > 0 && !matches!(bytes[i - 1], b'\n' | b'\0') {
            continue;
        }
        let line = line_at(bytes, at);
        let Some((major, minor)) = line.split_once('.') else {
            continue;
        };
        let (Ok(major), Ok(minor)) = (major.trim().parse(), minor.trim().parse()) else {
            continue;
        };
        // The `.target` line comes next (after blank lines or comments in hand-written PTX).
        let mut next = at + line.len();
        let mut target = None;
        for _ in 0..4 {
            next += 1;
            let line = line_at(bytes, next);
            if let Some(rest) = line.trim_start().strip_prefix(".target") {
                target = rest
                    .split(|c: char| c == ',' || c.is_whitespace())
                    .find(|word| !word.is_empty())
                    .map(str::to_owned);
                break;
            }
            next += line.len();
        }
        if let Some(target) = target {
            found.push(Ptx {
                offset: i,
                isa: (major, minor),
                target,
            });
        }
    }
    found
}

/// The first `needle` in `bytes` at or after `from`.
fn find_from(bytes: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|i| i + from)
}

/// The text from `at` to the end of its line (or string), empty where it is not UTF-8.
fn line_at(bytes: &[u8], at: usize) -> &str {
    let rest = bytes.get(at..).unwrap_or_default();
    let end = rest
        .iter()
        .position(|b| matches!(b, b'\n' | b'\0'))
        .unwrap_or(rest.len());
    std::str::from_utf8(&rest[..end]).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ptx_module_is_found_with_its_isa_and_target() {
        let data = b"junk\0// Generated\n\n.version 8.4\n.target sm_90a, texmode_independent\n.address_size 64\n\0other .version 1.0\n.target x\n";
        let found = find(data);
        assert_eq!(
            found,
            [Ptx {
                offset: 19,
                isa: (8, 4),
                target: "sm_90a".into()
            }]
        );
        assert_eq!(driver_for_isa(8, 4), Some(12040));
    }

    #[test]
    fn a_version_line_without_a_target_is_no_ptx() {
        assert!(
            find(b".version 9.0\nnothing\nmore\nlines\nhere\nat all\n.target sm_90\n").is_empty()
        );
        assert!(find(b".version nine\n.target sm_90\n").is_empty());
    }

    #[test]
    fn the_table_rises_and_knows_only_what_it_lists() {
        assert!(ISA_RELEASES.windows(2).all(|w| w[0] < w[1]));
        assert!(ISA_RELEASES.windows(2).all(|w| w[0].2 < w[1].2));
        assert_eq!(driver_for_isa(9, 0), Some(13000));
        // An old ISA is old: CUDA 8.0's.
        assert_eq!(driver_for_isa(5, 0), Some(8000));
        assert_eq!(driver_for_isa(1, 0), Some(1000));
        // Newer than the table, or never published: unknown.
        assert_eq!(driver_for_isa(99, 0), None);
        assert_eq!(driver_for_isa(9, 9), None);
        assert_eq!(driver_for_isa(5, 1), None);
        assert_eq!(driver_for_isa(1, 5), None);
        assert_eq!(newest_known_isa(), (9, 5));
    }

    #[test]
    fn a_driver_loads_the_isas_up_to_its_release() {
        assert_eq!(newest_isa_for_driver(12040), Some((8, 4)));
        // 12.6 added no ISA: 12.5's.
        assert_eq!(newest_isa_for_driver(12060), Some((8, 5)));
        assert_eq!(newest_isa_for_driver(99000), Some(newest_known_isa()));
        assert_eq!(newest_isa_for_driver(999), None);
        for &(major, minor, cuda) in ISA_RELEASES {
            assert_eq!(newest_isa_for_driver(cuda), Some((major, minor)));
        }
    }
}
