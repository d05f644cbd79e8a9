// Chapter 32
