"""mpi4py through MPI-IO: views, collective and pointer-based writes, reads, file queries.

usage: /usr/bin/python3 mpi4py_io.py FILE

Rank 0 writes a 16-byte header with Write_at; then every rank sets a view (etype MPI.INT, a vector
filetype resized to a tile shared by all ranks, displacement 16 + rank * block) and writes two
tiles with Write_at_all and two more with Seek + Write_all; Sync, Barrier, Sync; every rank reads
its own data back with Read_at_all and its neighbour's through a second view; Get_size,
Get_amode, Get_position, Get_errhandler; Close; rank 0 checks the whole file with plain Python
I/O. The file content depends only on the number of ranks. Nonblocking calls are left out.
AGIO_EXPECT=1 (0): fail unless libagio is (is not) mapped into the process.
"""
import os
import sys
from array import array

from mpi4py import MPI

B = 3  # ints per block
K = 4  # blocks per rank per tile
HEADER = b"agio-mpi4py-test"  # 16 bytes


def value(rank: int, i: int) -> int:
    return rank * 100000 + i * 7 + 1


def libagio_mapped() -> bool:
    with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
        return any("libagio" in line for line in f)


def main() -> int:
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    path = sys.argv[1]
    errors = []

    def check(cond: bool, msg: str) -> None:
        if not cond:
            errors.append(msg)

    expect = os.environ.get("AGIO_EXPECT", "")
    if expect:
        mapped = libagio_mapped()
        check(mapped == (int(expect) != 0),
              f"AGIO_EXPECT={expect} but libagio is {'' if mapped else 'not '}mapped")

    if rank == 0 and os.path.exists(path):
        os.unlink(path)
    comm.Barrier()
    fh = MPI.File.Open(comm, path, MPI.MODE_CREATE | MPI.MODE_RDWR)
    eh = fh.Get_errhandler()
    check(eh == MPI.ERRORS_RETURN, "default file errhandler is not MPI.ERRORS_RETURN")
    eh.Free()
    check(fh.Get_amode() == MPI.MODE_CREATE | MPI.MODE_RDWR, f"Get_amode = {fh.Get_amode()}")

    if rank == 0:
        st = MPI.Status()
        fh.Write_at(0, array("b", HEADER), st)
        check(st.Get_count(MPI.BYTE) == 16, "header Write_at count")
    comm.Barrier()

    isz = MPI.INT.Get_size()
    tile = K * size * B * isz
    vec = MPI.INT.Create_vector(K, B, size * B)
    ftype = vec.Create_resized(0, tile)
    ftype.Commit()
    vec.Free()
    per_tile = K * B
    fh.Set_view(16 + rank * B * isz, MPI.INT, ftype, "native")

    data = array("i", [value(rank, i) for i in range(4 * per_tile)])
    st = MPI.Status()
    fh.Write_at_all(0, data[: 2 * per_tile], st)
    check(st.Get_count(MPI.INT) == 2 * per_tile, f"Write_at_all count {st.Get_count(MPI.INT)}")
    fh.Seek(2 * per_tile, MPI.SEEK_SET)
    fh.Write_all(data[2 * per_tile:], st)
    check(st.Get_count(MPI.INT) == 2 * per_tile, f"Write_all count {st.Get_count(MPI.INT)}")
    check(fh.Get_position() == 4 * per_tile, f"Get_position = {fh.Get_position()}")
    fh.Sync()
    comm.Barrier()
    fh.Sync()

    got = array("i", [0] * (4 * per_tile))
    fh.Read_at_all(0, got, st)
    check(got == data, f"Read_at_all of own data: {list(got[:6])}... != {list(data[:6])}...")
    check(st.Get_count(MPI.INT) == 4 * per_tile, "Read_at_all count")

    nb = (rank + 1) % size
    fh.Set_view(16 + nb * B * isz, MPI.INT, ftype, "native")
    got = array("i", [0] * (4 * per_tile))
    fh.Read_at_all(0, got)
    want = array("i", [value(nb, i) for i in range(4 * per_tile)])
    check(got == want, f"Read_at_all of rank {nb}'s data differs")

    expect_size = 16 + 4 * tile
    check(fh.Get_size() == expect_size, f"Get_size = {fh.Get_size()}, expected {expect_size}")
    ftype.Free()
    fh.Close()
    check(fh == MPI.FILE_NULL, "handle is not MPI.FILE_NULL after Close")
    comm.Barrier()

    if rank == 0:
        with open(path, "rb") as f:
            raw = f.read()
        check(raw[:16] == HEADER, "header bytes differ")
        ints = array("i")
        ints.frombytes(raw[16:16 + 4 * tile])
        for t in range(4):
            for r in range(size):
                for k in range(K):
                    for b in range(B):
                        pos = t * K * size * B + k * size * B + r * B + b
                        i = t * per_tile + k * B + b
                        if ints[pos] != value(r, i):
                            check(False, f"file int {pos}: {ints[pos]} != {value(r, i)}")

    for e in errors[:10]:
        print(f"mpi4py_io: FAIL rank {rank}: {e}", file=sys.stderr)
    bad = comm.allreduce(len(errors), op=MPI.MAX)
    if rank == 0:
        print(f"mpi4py_io {path} ranks={size}: {'FAIL' if bad else 'OK'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
