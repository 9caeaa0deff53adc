/*
 * hints_table.h - the one table of every hint agio understands.
 *
 * X(name, type, default, min, max, doc)
 *   type: BYTES (integer, optional k/m/g suffix, powers of 1024), INT, ENUM (enable | disable |
 *   automatic), BOOL (true | false, also enable/disable, 1/0), PERM (octal file mode), STRING.
 *   min/max bound numeric values; for STRING, default is the text and min/max are unused.
 * Everything else (struct layout, parsing, MPI_Info output, display, doc/hints.md) is generated
 * from this table, so a new tunable is one row.
 */
#ifndef AGIO_HINTS_TABLE_H
#define AGIO_HINTS_TABLE_H

#define AGIO_HINTS_TABLE(X)                                                                        \
    X(romio_cb_read, ENUM, AGIO_HINT_AUTO, 0, 2,                                                   \
      "collective buffering for collective reads: enable | disable | automatic")                  \
    X(romio_cb_write, ENUM, AGIO_HINT_AUTO, 0, 2,                                                  \
      "collective buffering for collective writes: enable | disable | automatic")                 \
    X(cb_buffer_size, BYTES, 16777216, 65536, 1073741824,                                          \
      "bytes each aggregator moves per round of two-phase I/O")                                   \
    X(cb_nodes, INT, 0, 0, 1048576, "number of aggregators; 0 = one per node")                     \
    X(cb_config_list, STRING, "*:1", 0, 0, "aggregator placement, ROMIO syntax (*:N or host:N)")  \
    X(cb_align, INT, 2, 0, 3,                                                                      \
      "file-domain partition: 0 even, 1 stripe-aligned per call, 2 persistent stripe-cyclic, "    \
      "3 block-aligned")                                                                          \
    X(romio_ds_read, ENUM, AGIO_HINT_AUTO, 0, 2,                                                   \
      "[reserved: no effect until the sieving models lands] data sieving for independent non-contiguous reads: enable | disable | automatic")          \
    X(romio_ds_write, ENUM, AGIO_HINT_AUTO, 0, 2,                                                  \
      "[reserved: no effect until the sieving models lands] data sieving for independent non-contiguous writes: enable | disable | automatic")         \
    X(ind_rd_buffer_size, BYTES, 4194304, 4096, 1073741824,                                        \
      "[reserved: no effect until the sieving models lands] buffer for independent reads: sieving window and staging chunk")                           \
    X(ind_wr_buffer_size, BYTES, 524288, 4096, 1073741824,                                         \
      "[reserved: no effect until the sieving models lands] buffer for independent writes: sieving window and staging chunk")                          \
    X(striping_factor, INT, 0, 0, 65536, "[reserved: no effect until the lustre driver lands] stripe count for new files (0 = file system default)")  \
    X(striping_unit, BYTES, 0, 0, 4294967296,                                                      \
      "stripe size for new files and alignment unit of file domains (0 = from the file system)")  \
    X(direct_io, ENUM, AGIO_HINT_AUTO, 0, 2,                                                       \
      "O_DIRECT for aligned aggregator writes: enable | disable | automatic (= buffered: "       \
      "O_DIRECT measured slower on the reference machine)")                                                                  \
    X(agio_cb_pipeline, BOOL, 1, 0, 1,                                                             \
      "overlap the system I/O of a two-phase round with the next round's exchange")             \
    X(agio_cb_write_behind, BOOL, 0, 0, 1,                                                         \
      "hold the last partial stripe of a collective write until the next one completes it "     \
      "(cb_align 2); flushed by sync, close, reads and independent access")                     \
    X(agio_cb_min_per_agg, BYTES, 1048576, 4096, 1073741824,                                       \
      "fewest bytes per aggregator: smaller collective accesses use fewer aggregators")           \
    X(agio_node_size, INT, 0, 0, 1048576,                                                          \
      "treat every N consecutive ranks as one node (0 = real nodes; for testing placement)")      \
    X(agio_file_perm, PERM, 0666, 0, 07777,                                                        \
      "permissions of files created by MPI_File_open, before the umask (octal)")

#define AGIO_HINT_DISABLE 0
#define AGIO_HINT_ENABLE 1
#define AGIO_HINT_AUTO 2

#endif
