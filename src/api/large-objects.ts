// What counts as a large object (no upstream counterpart: Go serves each request on a goroutine of
// its own, so a big object's decoding never holds up other requests; here one event loop serves
// them all). From this size of JSON on, a write of an object goes in several tasks, its field
// manager, validation and encoding run on a worker thread, and the heap it leaves is given back
// soon after: below it each of those takes a few milliseconds, less than passing the object.
export const LARGE_OBJECT_BYTES = 128 * 1024;
