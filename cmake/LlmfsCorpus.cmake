# The course corpus (Chapter 1 pins it; Chapter 2 onwards trains on it).
#
#   corpus                 target: tools/extract-corpus.py writes ${LLMFS_CORPUS} from the
#                          Debian package bible-kjv and FAILS THE BUILD when its SHA-256 is
#                          not the one pinned in tools/corpus.sha256 (nothing is written then)
#   corpus.pinned          ctest: extracts again into a fresh folder and checks the pin, so a
#                          changed package is caught even when the build's copy is up to date
#   corpus.mismatch_fails  ctest: a wrong pin fails, names both hashes, writes nothing
#
# LLMFS_CORPUS (the extracted file) and LLMFS_TINY_CORPUS (the committed hand-sized fixture)
# are the paths chapter programs read; they are not committed (~4 MB) and not printed.
# LLMFS_PARTITIONS is the committed manifest of Chapter 2 (tools/corpus-partitions.tsv):
# the frozen train/validation/test partition of the corpus, one line per document.
# A chapter passes them to its program as LLMFS_CORPUS_PATH, LLMFS_TINY_CORPUS_PATH and
# LLMFS_PARTITIONS_PATH (see snippets/ch02-corpus-partitions/CMakeLists.txt).
set(LLMFS_CORPUS ${PROJECT_BINARY_DIR}/corpus/kjv.txt)
set(LLMFS_TINY_CORPUS ${PROJECT_SOURCE_DIR}/snippets/ch01-text-units/tiny_corpus.txt)
set(LLMFS_PARTITIONS ${PROJECT_SOURCE_DIR}/tools/corpus-partitions.tsv)
set(LLMFS_CORPUS_PIN ${PROJECT_SOURCE_DIR}/tools/corpus.sha256)
add_custom_command(
  OUTPUT ${LLMFS_CORPUS}
  COMMAND ${LLMFS_PYTHON} ${PROJECT_SOURCE_DIR}/tools/extract-corpus.py --out ${LLMFS_CORPUS}
  DEPENDS ${PROJECT_SOURCE_DIR}/tools/extract-corpus.py ${PROJECT_SOURCE_DIR}/tools/corpus.sha256
  COMMENT "corpus: extracting the King James Version (bible-kjv), pinned by SHA-256"
  VERBATIM)
add_custom_target(corpus ALL DEPENDS ${LLMFS_CORPUS})

if(NOT LLMFS_BUILD_CHECKS)
  return()
endif()
add_test(NAME corpus.pinned
         COMMAND ${LLMFS_PYTHON} ${PROJECT_SOURCE_DIR}/tools/extract-corpus.py
                 --out ${PROJECT_BINARY_DIR}/corpus-test/kjv.txt)
add_test(NAME corpus.mismatch_fails
         COMMAND ${LLMFS_PYTHON} ${PROJECT_SOURCE_DIR}/tools/extract-corpus.py --self-test)
set_tests_properties(corpus.pinned corpus.mismatch_fails PROPERTIES LABELS "golden;corpus;ch01" TIMEOUT 120)
