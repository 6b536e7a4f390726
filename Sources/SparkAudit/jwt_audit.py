#!/usr/bin/env python3
"""jwt_audit.py: `jwtverify audit` as a stage of an Apache Spark job, for audits that outgrow one machine.

    spark-submit [SPARK OPTIONS] jwt_audit.py --jwks SRC --output DIR [OPTIONS] INPUT...

Every INPUT (any path Spark's Hadoop layer reads: local, hdfs://, s3a://; a directory is read
whole, globs are expanded) is read one of two ways (--reader):

- jwtverify: local or mounted files, uncompressed. The files are dealt into tasks of about equal
  size, and each task's `jwtverify audit --files-from - --format tsv --discards` reads its files
  itself, exactly as one `jwtverify audit` run reads them.
- spark: any file system, compressed files, big files split into blocks. Every line is tagged with
  its file and line number and streamed, one partition at a time, through
  `jwtverify audit --tagged-input --format tsv --discards`.

Either way the stage is Spark's own `RDD.pipe`, all in the JVM: no line or record passes through
Python. The default, auto, takes jwtverify when every input is an uncompressed `file:` path and no
--split-size is given. The per-token records become a DataFrame written to DIR/tokens (Parquet or
JSON Lines). Beside its records, each task's jwtverify writes partial reports (`--partials`: one
per file it read, or per run of consecutive lines it was handed; counts only) and a summary of
each token it saw (`--reduced-repeats`). Spark's shuffle brings every summary of a token, then
every token of a nonce, to one task, whose `jwtverify audit reduce` finds the repeats and the
shared nonces there; the driver collects only the partials and one reduction per task, puts
them in input order, and `jwtverify audit merge` merges them once. The job aggregates nothing
itself, and neither the driver's memory nor what it collects grows with the number of distinct
tokens: the report is the one `jwtverify audit` prints over the same files, without its tracking
limit, written to DIR/report.json (and rendered from it by `jwtverify audit render` to
DIR/report.txt and DIR/report.html) and printed on stdout.

Every partition is evaluated with the same keys and at the same time: key sets given as URLs or
presets are fetched once on the driver into snapshots, and without --now or --at iat the job's
start time is used everywhere. The snapshots and a `jwtverify` given as a file are shipped to the
executors with the job (on a cluster, to each executor's working directory).

Exit status, as `jwtverify audit`: 0 every token found was valid (or none was found), 1 some token
was rejected, 64 usage, 65 unusable key set, 66 input missing, 69 a key set could not be fetched,
70 the Spark job failed.
"""

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_DATA, EXIT_NO_INPUT, EXIT_UNAVAILABLE, EXIT_SOFTWARE = 0, 1, 64, 65, 66, 69, 70

PRESETS = {"apple", "google", "firebase"}
# Suffixes of the files Hadoop decompresses as it reads them (jwtverify reads bytes as they are).
COMPRESSED = (".gz", ".bz2", ".deflate", ".lz4", ".snappy", ".zst", ".xz")
# Most files one jwtverify task opens (it opens all of them before reading any).
FILES_PER_TASK = 256
# About how many bytes of input one jwtverify task reads, at most, when there are enough files.
BYTES_PER_TASK = 128 << 20
# How the stage's jwtverify starts a line holding a partial report (`audit --partials`).
PARTIAL_MARK = "#partial\t"
# How `jwtverify audit reduce` starts its line holding the reduction.
REDUCED_MARK = "#reduced\t"
# How the stage's jwtverify starts a line holding a token's summary for the reduction.
SIGHTED_MARK = "#sighted\t"


class Failure(Exception):
    """A reason to stop, with the exit status that says which."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


# ----------------------------------------------------------------------------------------------
# Options


def parse_arguments(argv):
    parser = argparse.ArgumentParser(
        prog="jwt_audit.py",
        description="Audit the tokens in logs of any size with jwtverify, on Apache Spark.",
        epilog="Results: DIR/tokens (one record per token found), DIR/report.json, DIR/report.txt.",
    )
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="files, directories or globs Spark can read")
    parser.add_argument("--output", required=True, metavar="DIR", help="where results go (must not exist)")
    parser.add_argument(
        "--jwks", action="append", required=True, metavar="SRC",
        help="key set: a file, an https:// URL or a preset (as jwtverify audit --jwks takes them); repeatable",
    )
    parser.add_argument("--profile", help="apple | apple-notification | firebase | google | oidc")
    parser.add_argument("--project", help="Firebase project ID (with --profile firebase)")
    parser.add_argument("--issuer", help='required "iss"')
    parser.add_argument("--audience", action="append", default=[], metavar="AUD", help='accepted "aud", repeatable')
    parser.add_argument("--nonce", metavar="RAW", help='raw nonce every token\'s "nonce" must match')
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--now", metavar="T", help="evaluate every token at T (Unix seconds or RFC 3339); default: the job's start")
    when.add_argument("--at", choices=["iat"], help="evaluate each token at its own iat")
    parser.add_argument("--leeway", metavar="SECONDS", help="clock-skew allowance (jwtverify's default: 60)")
    parser.add_argument("--algorithms", metavar="LIST", help="allow-list (jwtverify's default: RS256,ES256)")
    parser.add_argument("--show-tokens", action="store_true", help="keep the raw token in each result")
    parser.add_argument("--results-format", choices=["parquet", "json"], default="parquet", help="DIR/tokens format")
    parser.add_argument(
        "--report-format", choices=["table", "markdown", "json", "html"], default="table", help="the report on stdout",
    )
    parser.add_argument(
        "--jwtverify", default="jwtverify", metavar="PATH",
        help="the binary: a file is shipped with the job; a bare name is looked up on the executors' PATH",
    )
    parser.add_argument(
        "--executor-path", default="/usr/local/bin:/usr/bin:/bin", metavar="PATH",
        help="PATH for jwtverify on the executors (default: %(default)s)",
    )
    parser.add_argument("--threads-per-task", type=int, default=1, metavar="N", help="jwtverify threads per Spark task")
    parser.add_argument("--split-size", type=int, metavar="BYTES", help="largest input split (default: Hadoop's; implies --reader spark under auto)")
    parser.add_argument(
        "--reader", choices=["auto", "jwtverify", "spark"], default="auto",
        help="who reads the inputs: jwtverify in each task (local or mounted, uncompressed files), or Spark's text "
             "source (any file system, compressed files, blocks of big files); auto: jwtverify when it can",
    )
    try:
        options = parser.parse_args(argv)
    except SystemExit as exit:
        raise Failure(EXIT_OK if exit.code == 0 else EXIT_USAGE, "") from None
    if options.threads_per_task < 1:
        raise Failure(EXIT_USAGE, "--threads-per-task must be at least 1")
    return options


def evaluation_arguments(options, start_time):
    """The `jwtverify audit` flags every partition gets, apart from the key sets."""
    arguments = []
    if options.profile:
        arguments += ["--profile", options.profile]
    if options.project:
        arguments += ["--project", options.project]
    if options.issuer:
        arguments += ["--issuer", options.issuer]
    for audience in options.audience:
        arguments += ["--audience", audience]
    if options.nonce is not None:
        arguments += ["--nonce", options.nonce]
    if options.at:
        arguments += ["--at", options.at]
    else:
        arguments += ["--now", options.now if options.now is not None else str(start_time)]
    if options.leeway is not None:
        arguments += ["--leeway", options.leeway]
    if options.algorithms is not None:
        arguments += ["--algorithms", options.algorithms]
    if options.show_tokens:
        arguments.append("--show-tokens")
    return arguments


# ----------------------------------------------------------------------------------------------
# The binary and the key sets, on the driver


def driver_binary(path):
    """The `jwtverify` the driver can run itself, or None."""
    if os.sep in path:
        return path if os.access(path, os.X_OK) else None
    return shutil.which(path)


def run_driver_binary(binary, arguments, stdin=None):
    """Runs jwtverify on the driver; status 126 when it cannot run here (another platform)."""
    try:
        return subprocess.run([binary] + arguments, input=stdin, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        return subprocess.CompletedProcess([binary] + arguments, 126, "", str(error))


def snapshot_key_sets(sources, binary, directory):
    """Each key set as a local file: files are copied, URLs and presets fetched once (one snapshot
    for the whole job, so every partition sees the same keys). Returns (original, local file) pairs."""
    snapshots = []
    for index, source in enumerate(sources):
        target = os.path.join(directory, "jwks-%d.json" % index)
        if source.startswith("https://") or source.startswith("http://") or source in PRESETS:
            if binary is None:
                raise Failure(
                    EXIT_USAGE,
                    "--jwks %s: fetching needs jwtverify on the driver; fetch a snapshot with "
                    "'jwtverify jwks fetch %s -o FILE' and pass the file" % (source, source),
                )
            fetched = run_driver_binary(binary, ["jwks", "fetch", source, "-o", target])
            if fetched.returncode != 0:
                raise Failure(fetched.returncode if fetched.returncode in (EXIT_DATA, EXIT_UNAVAILABLE) else EXIT_UNAVAILABLE,
                              fetched.stderr.strip() or "cannot fetch %s" % source)
        else:
            try:
                shutil.copyfile(source, target)
            except OSError as error:
                raise Failure(EXIT_NO_INPUT, "--jwks %s: %s" % (source, error.strerror or error))
        snapshots.append((source, target))
    return snapshots


def check_on_driver(binary, arguments, snapshots, columns):
    """Runs the stage's exact command on empty input: bad flags, unusable key sets and the like
    stop the job here, with jwtverify's message and status, rather than fail every task. Its
    header must name `columns`, the ones the job reads."""
    checked = run_driver_binary(binary, arguments, stdin="")
    if checked.returncode == 126:
        return  # not runnable here: the executors will say
    if checked.returncode > EXIT_REJECTED:
        message = checked.stderr.strip()
        for original, local in snapshots:
            message = message.replace(local, original)
        raise Failure(checked.returncode, message.replace("jwtverify: ", "") or "jwtverify audit exited %d" % checked.returncode)
    header = checked.stdout.split("\n", 1)[0]
    if header != "\t".join(columns):
        raise Failure(EXIT_SOFTWARE, "this jwtverify writes other columns than the job reads: %s" % header.replace("\t", " "))


# ----------------------------------------------------------------------------------------------
# Input


def list_input_files(sc, patterns):
    """Every file named by the patterns, with its size, through Hadoop's file systems: globs
    expanded, directories read recursively (without hidden and `_` files, as Hadoop's input
    formats skip them)."""
    jvm = sc._jvm
    conf = sc._jsc.hadoopConfiguration()
    files = []
    for pattern in patterns:
        path = jvm.org.apache.hadoop.fs.Path(pattern)
        fs = path.getFileSystem(conf)
        statuses = fs.globStatus(path)
        if statuses is None or len(statuses) == 0:
            raise Failure(EXIT_NO_INPUT, "%s: no such file or directory" % pattern)
        for status in sorted(statuses, key=lambda s: s.getPath().toString()):
            if not status.isDirectory():
                files.append((status.getPath().toString(), status.getLen()))
                continue
            found = []
            iterator = fs.listFiles(status.getPath(), True)
            while iterator.hasNext():
                child = iterator.next()
                relative = child.getPath().toString()[len(status.getPath().toString()):]
                if not any(part.startswith((".", "_")) for part in relative.split("/") if part):
                    found.append((child.getPath().toString(), child.getLen()))
            files += sorted(found)
    return files


def choose_reader(options, files):
    """The reader the job uses: as asked, or under auto jwtverify when every input is an
    uncompressed `file:` path and no --split-size asks for Spark's splits."""
    local = all(name.startswith("file:") and not name.endswith(COMPRESSED) for name, _ in files)
    if options.reader == "jwtverify" and not local:
        raise Failure(EXIT_USAGE, "--reader jwtverify reads uncompressed local files only (file: paths); use --reader spark")
    if options.reader != "auto":
        return options.reader
    return "jwtverify" if local and not options.split_size else "spark"


def file_groups(files, count):
    """The files (name, size) dealt into at most `count` groups of about equal size (largest file
    first, to the smallest group); each group keeps the listing's order."""
    count = max(1, min(count, len(files)))
    groups, sizes = [[] for _ in range(count)], [0] * count
    for index in sorted(range(len(files)), key=lambda i: (-files[i][1], i)):
        smallest = min(range(count), key=lambda g: (sizes[g], g))
        groups[smallest].append(index)
        sizes[smallest] += files[index][1]
    return [[files[i][0] for i in sorted(group)] for group in groups if group]


def listed_files(spark, files):
    """The stage's input for the jwtverify reader, as a JVM `RDD[String]`: one element per task,
    the paths of its files one per line (what `--files-from -` reads)."""
    sc = spark.sparkContext
    total = sum(size for _, size in files)
    # Whole waves of tasks: a last wave of fewer tasks than cores would leave cores idle.
    slots = max(1, sc.defaultParallelism)
    count = slots * max(1, -(-total // (BYTES_PER_TASK * slots)), -(-len(files) // (FILES_PER_TASK * slots)))
    groups = file_groups(files, count)
    while max(len(group) for group in groups) > FILES_PER_TASK:
        count += slots
        groups = file_groups(files, count)
    elements = sc._jvm.java.util.ArrayList()
    for group in groups:
        elements.add("\n".join(group))
    return sc._jsc.parallelize(elements, len(groups)).rdd()


def numbered_lines(spark, files, split_size):
    """Every line of the files, as `FILE_INDEX:LINE_NUMBER<TAB>TEXT`, numbered within its file as
    jwtverify numbers them, as a JVM `RDD[String]`: no line ever passes through Python.

    Lines end at `\\n` only, as jwtverify reads them (a `\\r` stays in the text). Numbering costs
    one extra pass that only counts the lines of each split (in the JVM): a split is a file and the
    offset its block starts at, and its rows sit together in one partition in file order, so a row's
    line number is the split's first line plus its distance from the split's first row id."""
    from pyspark.sql import functions as F
    if split_size:
        spark.conf.set("spark.sql.files.maxPartitionBytes", str(split_size))
    text = spark.read.option("lineSep", "\n").text([name for name, _ in files])
    rows = text.select(F.col("_metadata.file_path").alias("path"), F.col("_metadata.file_block_start").alias("block"),
                       F.monotonically_increasing_id().alias("row"), "value")
    splits = rows.groupBy("path", "block").agg(F.count(F.lit(1)).alias("lines"), F.min("row").alias("first_row")).collect()
    index = {name: number for number, (name, _) in enumerate(files)}
    seen, numbered = {}, []
    for split in sorted(splits, key=lambda split: (split["path"], split["block"])):
        if split["path"] not in index:
            raise Failure(EXIT_SOFTWARE, "Spark read %s, which was not listed" % split["path"])
        first_line = seen.get(split["path"], 0) + 1
        seen[split["path"]] = first_line - 1 + split["lines"]
        numbered.append((split["path"], split["block"], index[split["path"]], first_line - split["first_row"]))
    starts = spark.createDataFrame(numbered, "path string, block long, file_index int, offset long")
    tagged = rows.join(F.broadcast(starts), ["path", "block"]).select(
        F.concat(F.col("file_index").cast("string"), F.lit(":"), (F.col("row") + F.col("offset")).cast("string"),
                 F.lit("\t"), F.col("value")).alias("tag"))
    return getattr(tagged._jdf, "as")(spark._jvm.org.apache.spark.sql.Encoders.STRING()).rdd()


def piped_lines(spark, jrdd, command, executor_path, keep=True):
    """Each partition of the JVM `RDD[String]` `jrdd` streamed through `command` (Spark's own
    `RDD.pipe`, in the JVM: no line passes through Python), as a DataFrame of its output lines
    (`value`); with `keep`, kept so that the pipe runs once however often it is read. The lines are
    kept on the executors' disks, streamed there as the pipe writes them: a copy kept in memory
    first (as a DataFrame's columns, or as serialized blocks) took executors of 1 GB out of heap
    once partitions were large (a 588 MB file read by one task)."""
    from pyspark.sql import DataFrame
    jvm = spark._jvm
    argv = jvm.java.util.ArrayList()
    for word in ["/usr/bin/env", "PATH=" + executor_path] + command:
        argv.add(word)
    no_env = jvm.scala.collection.immutable.HashMap()
    # pipe(command, env, printPipeContext, printRDDElement, separateWorkingDir, bufferSize, encoding)
    piped = jrdd.pipe(jvm.scala.collection.JavaConverters.asScalaBuffer(argv).toSeq(), no_env, None, None, False, 1 << 16, "UTF-8")
    if keep:
        piped = piped.persist(jvm.org.apache.spark.storage.StorageLevel.DISK_ONLY())
    return DataFrame(spark._jsparkSession.createDataset(piped, jvm.org.apache.spark.sql.Encoders.STRING()).toDF(), spark), piped


def string_rdd(frame):
    """The one string column of `frame` as a JVM `RDD[String]`, for ``piped_lines``."""
    return getattr(frame._jdf, "as")(frame.sparkSession._jvm.org.apache.spark.sql.Encoders.STRING()).rdd()


def reduced_repeats(spark, lines, partitions, reducer, executor_path):
    """Repeats and nonces shared by distinct tokens, reduced where the records are. Each task's
    jwtverify hands on, among its records, a summary per token it saw (`#sighted` lines: count,
    earliest and latest sighting, combined in bounded memory); Spark's shuffle brings every summary
    of a token to one task, sorted, whose `jwtverify audit reduce tokens` streams through them one
    token at a time; each token with a nonce then goes, the same way, to the task that holds its
    nonce (`audit reduce nonces`, which passes the token reductions on). Only the `#reduced` lines
    come back (counts and at most 100 list candidates each): what the driver collects does not
    grow with the number of distinct tokens. Returns their JSON."""
    from pyspark.sql import functions as F
    def grouped(frame):
        keyed = frame.select(F.split("value", "\t", 2)[0].alias("key"), "value")
        return string_rdd(keyed.repartition(partitions, "key").sortWithinPartitions("key").select("value"))
    summaries = lines.where(F.col("value").startswith(SIGHTED_MARK)).select(F.expr("substring(value, %d)" % (len(SIGHTED_MARK) + 1)).alias("value"))
    by_token, _ = piped_lines(spark, grouped(summaries), reducer + ["tokens"], executor_path, keep=False)
    reduced = piped_lines(spark, grouped(by_token), reducer + ["nonces"], executor_path, keep=False)[0].collect()
    return [row["value"][len(REDUCED_MARK):] for row in reduced]


def piped_records(spark, tagged, command, executor_path, schema):
    """The stage: each partition of `tagged` (an `RDD[String]`: tagged lines, or lists of files)
    streamed through `command` (Spark's own `RDD.pipe`, in the JVM). Returns the rows of its
    `--format tsv`, read there by Spark's CSV parser with `schema` (see ``stage_schema``), and
    its partial-report lines. Its output is kept for both (see ``piped_lines``): the stage runs once."""
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType
    jvm = spark._jvm
    lines, kept = piped_lines(spark, tagged, command, executor_path)
    # Each task's jwtverify writes the header first, its partial reports after their records and
    # its token summaries among them. No row starts like any: a token's row starts with its empty
    # `discarded` cell, a discard's with its reason.
    first_column = schema.fields[0].name
    partials = lines.where(F.col("value").startswith(PARTIAL_MARK))
    rows = lines.where(~F.col("value").startswith(first_column + "\t") & ~F.col("value").startswith(PARTIAL_MARK)
                       & ~F.col("value").startswith(SIGHTED_MARK))
    rows = getattr(rows._jdf, "as")(jvm.org.apache.spark.sql.Encoders.STRING())
    reader = spark._jsparkSession.read().schema(spark._jsparkSession.parseDataType(schema.json()))
    # One row per line, cells as they are: an empty cell is null, and a cell that starts with a
    # quote is a JSON string (text that is empty, starts with a quote or holds a control character).
    for option, value in (("sep", "\t"), ("quote", "\u0000"), ("mode", "FAILFAST")):
        reader = reader.option(option, value)
    cells = DataFrame(reader.csv(rows), spark)
    records = cells.select(*[json_text(field.name) if field.dataType == StringType() else field.name for field in schema.fields])
    return records, partials, lines, kept


def json_text(name):
    """The text of the string column `name`: its cell, or the JSON string it holds."""
    from pyspark.sql import functions as F
    cell = F.col(name)
    return F.when(cell.startswith('"'), F.from_json(F.concat(F.lit("["), cell, F.lit("]")), "array<string>")[0]).otherwise(cell).alias(name)




def stage_columns(show_tokens, tagged):
    """The columns of the stage's `jwtverify audit --format tsv`, in its order, with their types
    (the header, checked on the driver, names them)."""
    where = [("tag", "string")] if tagged else [("file", "string"), ("line", "long")]
    return ([("discarded", "string")] + where + [
        ("column", "long"), ("found_in", "string"), ("valid", "boolean"), ("reason", "string"), ("detail", "string"), ("alg", "string"),
        ("kid", "string"), ("iss", "string"), ("sub", "string"), ("aud", "string"), ("aud_list", "string"),
        ("exp", "double"), ("iat", "double"), ("claims_verified", "boolean"), ("key_source", "string"),
        ("lifetime", "double"), ("evaluated_at", "double"), ("fingerprint", "string"), ("nonce_fingerprint", "string"),
        ("anomalies", "string"),
    ] + ([("token", "string")] if show_tokens else []))


def stage_schema(show_tokens, tagged):
    """The stage's rows as Spark reads them: every column of ``stage_columns``. `aud` holds a
    string audience and `aud_list` an array's JSON; `anomalies` are joined with commas
    (``results`` turns both into arrays)."""
    from pyspark.sql.types import BooleanType, DoubleType, IntegerType, LongType, StringType, StructField, StructType
    types = {"string": StringType(), "long": LongType(), "int": IntegerType(), "boolean": BooleanType(), "double": DoubleType()}
    return StructType([StructField(name, types[kind]) for name, kind in stage_columns(show_tokens, tagged)])


def results(spark, records, names, key_sources, show_tokens, tagged):
    """The per-token results: the stage's token records with `file` and `line` (from the tag, for
    the spark reader), `aud` as an array and `key_source` as the user named it. All in the JVM, no
    Python per row."""
    from pyspark.sql import functions as F
    tag = F.split(F.col("tag"), ":", 2)
    audience = (F.when(F.col("aud_list").isNotNull(), F.from_json(F.col("aud_list"), "array<string>"))
                .when(F.col("aud").isNotNull(), F.array(F.col("aud"))))
    anomalies = F.when(F.col("anomalies").isNull(), F.array().cast("array<string>")).otherwise(F.split(F.col("anomalies"), ","))
    key_source = F.col("key_source")
    for path, original in key_sources.items():
        key_source = F.when(F.col("key_source") == path, F.lit(original)).otherwise(key_source)
    columns = ["file", tag[1].cast("long").alias("line") if tagged else "line", "column", "found_in", "valid", "reason", "detail", "alg", "kid",
               key_source.alias("key_source"), "iss", audience.alias("aud"), "sub", "iat", "exp", "lifetime", "evaluated_at",
               "fingerprint", "nonce_fingerprint", anomalies.alias("anomalies")]
    if show_tokens:
        columns.append("token")
    tokens = records.where(F.col("discarded").isNull())
    if not tagged:
        return tokens.select(*columns)
    files = spark.createDataFrame([(index, name) for index, name in enumerate(names)], "file_index int, file string")
    return tokens.withColumn("file_index", tag[0].cast("int")).join(F.broadcast(files), "file_index", "left").select(*columns)


# ----------------------------------------------------------------------------------------------
# The report: the tasks' partials, in input order, merged by jwtverify


def input_order(start, positions):
    """Where a partial's run starts, as a key that sorts in input order: a file (as the task's
    jwtverify named it: the listing's name, found in `positions`) from its first line, or a tag's
    [FILE, LINE]. A run without a place (a tagged line too long to read its tag) holds only
    counts: first."""
    if isinstance(start, str):
        return (positions[start], 0)
    if isinstance(start, list):
        return (start[0], start[1])
    return (-1, 0)


def ordered_partials(lines, names):
    """The stage's partial-report lines (`#partial<TAB>START<TAB>PARTIAL`) as JSON Lines in input
    order: what `jwtverify audit merge` takes. The partials pass as jwtverify wrote them (it named
    their places by the listing); only their order is the job's."""
    positions = {name: position for position, name in enumerate(names)}
    entries = []
    for line in lines:
        _, start, text = line.split("\t", 2)
        entries.append((input_order(json.loads(start), positions), len(entries), text))
    entries.sort(key=lambda entry: entry[:2])
    return "".join(text + "\n" for _, _, text in entries)


def run_jwtverify(sc, plan, command, arguments, text):
    """`jwtverify ARGUMENTS` over `text` on standard input, its output: on the driver when it can
    run the binary, else on one executor. Status 1 (some token rejected) is a finding, not a failure."""
    if plan.binary is not None:
        done = run_driver_binary(plan.binary, arguments, stdin=text)
        if done.returncode > EXIT_REJECTED:
            raise Failure(EXIT_SOFTWARE, "jwtverify %s: %s" % (" ".join(arguments[:2]), done.stderr.strip()))
        return done.stdout
    merge = shlex.join(["/bin/sh", "-c", '"$@"; status=$?; [ "$status" -le 1 ] || exit "$status"', "jwtverify", command] + arguments)
    lines = sc.parallelize(text.splitlines(), 1).pipe(merge, checkCode=True).collect()
    return "".join(line + "\n" for line in lines)


def merged_report(sc, plan, command, partials):
    """The partials and the reductions merged once by `jwtverify audit merge`, as a JSON report."""
    return run_jwtverify(sc, plan, command, ["audit", "merge", "--format", "json", "-"], partials)


def rendered_report(sc, plan, command, report_json, form):
    """The merged report in another format, by `jwtverify audit render` (not merged again)."""
    return run_jwtverify(sc, plan, command, ["audit", "render", "--format", form, "-"], report_json)


def write_text(sc, directory, name, text):
    """Writes one small file next to the results, through Hadoop's file systems."""
    jvm = sc._jvm
    path = jvm.org.apache.hadoop.fs.Path(directory, name)
    stream = path.getFileSystem(sc._jsc.hadoopConfiguration()).create(path, True)
    try:
        stream.write(bytearray(text.encode("utf-8")))
    finally:
        stream.close()


# ----------------------------------------------------------------------------------------------
# The job


class Plan:
    """What the driver settles before Spark starts: the key-set snapshots, the evaluation time and
    the stage's arguments, checked by running them once on empty input."""

    def __init__(self, options, staging):
        self.options = options
        self.start_time = int(time.time())
        binary = driver_binary(options.jwtverify)
        self.binary = binary
        self.snapshots = snapshot_key_sets(options.jwks, binary, staging)
        if os.sep in options.jwtverify and not os.path.isfile(options.jwtverify):
            raise Failure(EXIT_NO_INPUT, "--jwtverify %s: no such file" % options.jwtverify)
        self.staging = staging
        if binary is not None:
            empty_listing = os.path.join(staging, "listing-check.txt")
            open(empty_listing, "w").close()
            check_on_driver(binary, self.audit_arguments([local for _, local in self.snapshots], empty_listing), self.snapshots,
                            [name for name, _ in stage_columns(options.show_tokens, tagged=True)])

    def audit_arguments(self, key_paths, listing, reader="spark"):
        """The stage's `jwtverify audit`: over tagged lines (the spark reader) or over the files
        each task is handed on standard input (the jwtverify reader), with the input's listing."""
        options = self.options
        source = ["--tagged-input"] if reader == "spark" else ["--files-from", "-"]
        arguments = ["audit"] + source + ["--format", "tsv", "--discards", "--partials", "--reduced-repeats", "--listing", listing,
                                          "--quiet", "--threads", str(options.threads_per_task)]
        for path in key_paths:
            arguments += ["--jwks", path]
        return arguments + evaluation_arguments(options, self.start_time)


def run(plan, spark):
    options = plan.options
    sc = spark.sparkContext
    snapshots = plan.snapshots
    files = list_input_files(sc, options.inputs)
    jvm = sc._jvm
    output = jvm.org.apache.hadoop.fs.Path(options.output)
    if output.getFileSystem(sc._jsc.hadoopConfiguration()).exists(output):
        raise Failure(EXIT_USAGE, "--output %s exists" % options.output)

    # One JVM (local[N]): the executors see the driver's files. A cluster: ship them; each lands
    # in the executor's working directory, where the pipe's command runs.
    single_process = sc.master == "local" or sc.master.startswith("local[")
    key_files = []
    for original, local in snapshots:
        if single_process:
            key_files.append((original, local))
        else:
            sc.addFile(local)
            key_files.append((original, os.path.basename(local)))
    command = options.jwtverify
    if os.sep in command:
        if single_process:
            command = os.path.abspath(command)
        else:
            sc.addFile(command)
            command = "./" + os.path.basename(command)
    reader = choose_reader(options, files)
    if any("\n" in name for name, _ in files):
        raise Failure(EXIT_USAGE, "an input's name holds a line break, which the job's listing cannot hold")
    # The listing travels like the key sets: every task places its sightings by it.
    listing = os.path.join(plan.staging, "listing.txt")
    with open(listing, "w", encoding="utf-8") as f:
        f.write("".join(name + "\n" for name, _ in files))
    if not single_process:
        sc.addFile(listing)
        listing = os.path.basename(listing)
    audit = [command] + plan.audit_arguments([path for _, path in key_files], listing, reader)
    # `audit` exits 1 when it found a rejected token: a finding, not a failure of the stage.
    stage = ["/bin/sh", "-c", '"$@"; status=$?; [ "$status" -le 1 ] || exit "$status"', "jwtverify"] + audit

    tagged = reader == "spark"
    stage_input = numbered_lines(spark, files, options.split_size) if tagged else listed_files(spark, files)
    partitions = stage_input.getNumPartitions()
    records, partial_lines, piped, kept = piped_records(spark, stage_input, stage, options.executor_path, stage_schema(options.show_tokens, tagged))
    destination = options.output.rstrip("/") + "/tokens"
    names = [name for name, _ in files]
    tokens = results(spark, records, names, {p: o for o, p in key_files}, options.show_tokens, tagged)
    writer = tokens.write
    (writer.parquet if options.results_format == "parquet" else writer.json)(destination)
    # The partials, from the stage's output as kept: counts, a line per file or run of lines.
    partial_texts = [row["value"] for row in partial_lines.collect()]
    partials = ordered_partials(partial_texts, names)
    # Repeats and shared nonces, reduced where the records are (two shuffles, one line per task back).
    reducer = [command, "audit", "reduce"]
    reduced = reduced_repeats(spark, piped, partitions, reducer, options.executor_path)
    kept.unpersist(False)

    report_json = merged_report(sc, plan, command, partials + "".join(line + "\n" for line in reduced))
    report = json.loads(report_json)
    write_text(sc, options.output, "report.json", report_json)
    write_text(sc, options.output, "report.txt", rendered_report(sc, plan, command, report_json, "table"))
    write_text(sc, options.output, "report.html", rendered_report(sc, plan, command, report_json, "html"))
    sys.stdout.write(report_json if options.report_format == "json" else rendered_report(sc, plan, command, report_json, options.report_format))
    sys.stdout.flush()
    collected = sum(len(text.encode()) for text in partial_texts) + sum(len(text.encode()) for text in reduced)
    sys.stderr.write("jwt_audit: %d files in %d partitions (read by %s), %d tokens found, %d valid, %d rejected; "
                     "the driver collected %d bytes (%d partial reports, %d reductions)\n" % (
                         len(files), partitions, reader, report["tokens"], report["valid"], report["rejected"],
                         collected, len(partial_texts), len(reduced)))
    return EXIT_OK if report["tokens"] == report["valid"] else EXIT_REJECTED


def main(argv=None):
    staging = tempfile.mkdtemp(prefix="jwt-audit-")
    try:
        options = parse_arguments(sys.argv[1:] if argv is None else argv)
        plan = Plan(options, staging)
    except Failure as failure:
        if failure.args[0]:
            sys.stderr.write("jwt_audit: %s\n" % failure.args[0])
        shutil.rmtree(staging, ignore_errors=True)
        return failure.status
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.appName("jwt_audit").config("spark.log.level", "WARN").getOrCreate()
    try:
        return run(plan, spark)
    except Failure as failure:
        sys.stderr.write("jwt_audit: %s\n" % failure.args[0])
        return failure.status
    except Exception as error:  # a failed stage (a task's jwtverify exited with an error, a lost executor)
        lines = [line for line in str(error).splitlines() if line.strip()]
        sys.stderr.write("jwt_audit: the Spark job failed: %s\n" % (lines[0] if lines else type(error).__name__))
        return EXIT_SOFTWARE
    finally:
        spark.stop()
        shutil.rmtree(staging, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
