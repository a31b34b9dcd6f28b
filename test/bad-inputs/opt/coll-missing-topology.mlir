// CMD: tessel-opt %s -o %o -p 'coll-synthesize{time-limit=5}'
// ERROR: 'coll.collective' op refers to @nowhere, which is not a coll.topology in the module
coll.collective @ag allgather ranks 4 chunkup 1 size 4096 on @nowhere
