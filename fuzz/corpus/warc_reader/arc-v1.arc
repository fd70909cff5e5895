filedesc://x.arc 0.0.0.0 20080430204825 text/plain 20
1 0 InternetArchive

http://a/ 1.2.3.4 20080430204826 text/html 5
hello
